import Walk

/// The 64-bit FNV-1a hash (Fowler, Noll, Vo): names files after identifiers of any length and
/// content, in 16 hexadecimal digits.
///
/// Not a cryptographic hash, and not used as one: nothing here needs collision resistance against
/// an adversary, only short, stable, file-system-safe names. Whoever stores data under such a
/// name keeps the full identifier inside and checks it on reading (`ProgressStore`), so even the
/// one-in-2^64 clash is caught rather than mixed up. The project has no cryptographic library
/// yet, and pulling one in for file names would cost every build more than it gives.
public enum FNV1a64 {
    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01b3

    public static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var h = offsetBasis
        for byte in bytes {
            h ^= UInt64(byte)
            h &*= prime
        }
        return h
    }

    /// The hash of the string's UTF-8 bytes, as 16 lower-case hexadecimal digits.
    public static func hex(_ text: String) -> String {
        let digits = String(hash(text.utf8), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

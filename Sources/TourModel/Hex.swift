/// Lower-case hexadecimal: blob names and content hashes (the store), signatures and secrets (the
/// server). By table, since `String(format:)` costs microseconds a byte on Linux and a manifest
/// signs a dozen URLs.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// True for a name made of 64 lower-case hex digits: a SHA-256 (a blob, not a stray file).
    public static func isSHA256(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { digits.contains($0) }
    }
}

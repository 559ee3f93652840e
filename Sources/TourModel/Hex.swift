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

    /// The bytes an even number of hex digits (either case) spell, or nil for anything else: an odd
    /// count, a sign, a space or any other character.
    public static func bytes(_ text: some StringProtocol) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count / 2)
        var iterator = text.utf8.makeIterator()
        while let high = iterator.next() {
            guard let low = iterator.next(), let h = value(high), let l = value(low) else { return nil }
            bytes.append(h << 4 | l)
        }
        return bytes
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// True for a name made of 64 lower-case hex digits: a SHA-256 (a blob, not a stray file).
    public static func isSHA256(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { digits.contains($0) }
    }
}

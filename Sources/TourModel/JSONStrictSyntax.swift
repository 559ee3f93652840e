import Foundation

/// What Foundation's JSON reader lets through that RFC 8259 does not: a comma before a closing
/// bracket (`[1, 2,]`, `{"a": 1,}`), and numbers outside the grammar (`03`, `1.`, `.5`, `+1`,
/// `1e`). The reader took the first as JSON5 does and called the second "a number out of range";
/// a tour folder is strict JSON, so its tour.json works in every other tool a curator uses.
///
/// Like `JSONDuplicateKeys`, a scan of the text that is not a validator: anything else wrong is
/// left to the decoder, which says where.
public enum JSONStrictSyntax {
    public struct Problem: Sendable, Hashable {
        /// Byte offset of the offending token.
        public var offset: Int
        public var what: String
    }

    /// JSON text in UTF-16 or UTF-32 (a byte-order mark, or the NULs of the first characters, as
    /// RFC 4627 tells them apart) as UTF-8; UTF-8 as it is. Foundation's reader takes all five, so
    /// the strict scan reads what the reader would (Windows editors save UTF-16 with a mark).
    public static func utf8(_ data: Data) -> Data {
        let b = Array(data.prefix(4))
        guard b.count >= 2 else { return data }
        let encoding: String.Encoding?
        switch b.count >= 4 ? Array(b[0..<4]) : b + [1, 1] {
        case let x where x[0] == 0xFF && x[1] == 0xFE && x[2] == 0 && x[3] == 0: encoding = .utf32LittleEndian
        case let x where x[0] == 0 && x[1] == 0 && x[2] == 0xFE && x[3] == 0xFF: encoding = .utf32BigEndian
        case let x where x[0] == 0xFF && x[1] == 0xFE: encoding = .utf16LittleEndian
        case let x where x[0] == 0xFE && x[1] == 0xFF: encoding = .utf16BigEndian
        case let x where x[0] == 0 && x[1] == 0 && x[2] == 0 && x[3] != 0: encoding = .utf32BigEndian
        case let x where x[0] != 0 && x[1] == 0 && x[2] == 0 && x[3] == 0: encoding = .utf32LittleEndian
        case let x where x[0] == 0 && x[1] != 0: encoding = .utf16BigEndian
        case let x where x[0] != 0 && x[1] == 0: encoding = .utf16LittleEndian
        default: encoding = nil
        }
        guard let encoding, var text = String(data: data, encoding: encoding) else { return data }
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        return Data(text.utf8)
    }

    public static func firstProblem(in bytes: some Collection<UInt8>) -> Problem? {
        let text = Array(bytes)
        var i = 0
        while i < text.count {
            let c = text[i]
            switch c {
            case UInt8(ascii: "\""):
                // Skip the string, escapes included.
                i += 1
                while i < text.count, text[i] != UInt8(ascii: "\"") {
                    i += text[i] == UInt8(ascii: "\\") ? 2 : 1
                }
                i += 1
            case UInt8(ascii: ","):
                var j = i + 1
                while j < text.count, isSpace(text[j]) { j += 1 }
                if j < text.count, text[j] == UInt8(ascii: "}") || text[j] == UInt8(ascii: "]") {
                    return Problem(offset: i, what: "a comma before a closing bracket")
                }
                i += 1
            case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "0")...UInt8(ascii: "9"):
                var j = i
                while j < text.count, isNumberByte(text[j]) { j += 1 }
                let token = text[i..<j]
                if !isJSONNumber(token) {
                    return Problem(
                        offset: i, what: "\(String(decoding: token, as: UTF8.self)) is not a JSON number")
                }
                i = j
            default:
                i += 1
            }
        }
        return nil
    }

    private static func isSpace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D
    }

    private static func isNumberByte(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
            UInt8(ascii: "e"), UInt8(ascii: "E"):
            true
        default: false
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    static func isJSONNumber(_ token: ArraySlice<UInt8>) -> Bool {
        var i = token.startIndex
        let end = token.endIndex
        func digits() -> Int {
            let start = i
            while i < end, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(token[i]) { i += 1 }
            return i - start
        }
        if i < end, token[i] == UInt8(ascii: "-") { i += 1 }
        guard i < end else { return false }
        if token[i] == UInt8(ascii: "0") {
            i += 1
        } else if digits() == 0 {
            return false
        }
        if i < end, token[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { return false }
        }
        if i < end, token[i] == UInt8(ascii: "e") || token[i] == UInt8(ascii: "E") {
            i += 1
            if i < end, token[i] == UInt8(ascii: "+") || token[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return false }
        }
        return i == end
    }
}

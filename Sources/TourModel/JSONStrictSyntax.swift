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

/// Finds an object key that appears twice in JSON text.
///
/// RFC 8259 leaves duplicate names to the reader, and JSONDecoder and JSONSerialization silently
/// keep one of them: a curator who pastes a second `"title"` into a point never learns which one
/// the walk shows. This scan reads the text once, with a stack of the keys seen in each open
/// object, and stops at the first repeat. Keys are compared after unescaping (`"a"` and
/// `"\u0061"` are the same key) and as Swift strings, the way the decoder's dictionaries compare
/// them. It is not a validator: on text that is not JSON it returns nil and leaves the syntax
/// error to the decoder, which says where it is.
public enum JSONDuplicateKeys {
    public struct Duplicate: Sendable, Hashable {
        /// Where the object is, like `points[2].content.en`; empty for the top-level object.
        public var path: String
        public var key: String
    }

    private enum Container {
        case object(keys: Set<String>, current: String?)
        case array(index: Int)
    }

    public static func first(in bytes: some Collection<UInt8>) -> Duplicate? {
        let text = Array(bytes)
        var stack: [Container] = []
        var i = 0
        // Skips a value's scalar tokens (numbers, true, false, null) up to a structural character.
        func skipScalar() {
            while i < text.count {
                switch text[i] {
                case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ":"),
                    UInt8(ascii: "\""), UInt8(ascii: "["), UInt8(ascii: "{"):
                    return
                default: i += 1
                }
            }
        }
        while i < text.count {
            let c = text[i]
            switch c {
            case UInt8(ascii: "{"):
                stack.append(.object(keys: [], current: nil))
                i += 1
            case UInt8(ascii: "["):
                stack.append(.array(index: 0))
                i += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard !stack.isEmpty else { return nil }
                stack.removeLast()
                i += 1
            case UInt8(ascii: ","):
                guard let top = stack.last else { return nil }
                if case .array(let index) = top { stack[stack.count - 1] = .array(index: index + 1) }
                i += 1
            case UInt8(ascii: "\""):
                guard let end = stringEnd(text, from: i) else { return nil }
                // A string is a key when it is followed by a colon; only keys are unescaped.
                var j = end
                while j < text.count, isSpace(text[j]) { j += 1 }
                guard j < text.count, text[j] == UInt8(ascii: ":"), case .object(var keys, _)? = stack.last else {
                    i = end
                    continue
                }
                guard let (string, _) = readString(text, from: i) else { return nil }
                if keys.contains(string) {
                    return Duplicate(path: path(stack.dropLast()), key: string)
                }
                keys.insert(string)
                stack[stack.count - 1] = .object(keys: keys, current: string)
                i = j + 1
            case UInt8(ascii: ":"):
                i += 1
            default:
                if isSpace(c) { i += 1 } else { skipScalar() }
            }
        }
        return nil
    }

    private static func isSpace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D
    }

    /// The path of the innermost object, in JSONPath's style: `points[2].content.en`.
    private static func path(_ containers: ArraySlice<Container>) -> String {
        var out = ""
        for container in containers {
            switch container {
            case .object(_, let current):
                if let current { out += out.isEmpty ? current : ".\(current)" }
            case .array(let index):
                out += "[\(index)]"
            }
        }
        return out
    }

    /// The index after the closing quote of the string starting at `start`, nil if unterminated.
    private static func stringEnd(_ text: [UInt8], from start: Int) -> Int? {
        var i = start + 1
        while i < text.count {
            switch text[i] {
            case UInt8(ascii: "\""): return i + 1
            case UInt8(ascii: "\\"): i += 2
            default: i += 1
            }
        }
        return nil
    }

    /// The unescaped string starting at the quote at `start`, and the index after its closing
    /// quote; nil when the string is unterminated or has a bad escape.
    private static func readString(_ text: [UInt8], from start: Int) -> (String, Int)? {
        var i = start + 1
        var plain = i
        var scalars = String.UnicodeScalarView()
        var pending: [UInt8] = []
        func flushPlain(upTo end: Int) {
            pending.append(contentsOf: text[plain..<end])
        }
        func flushPending() {
            scalars.append(contentsOf: String(decoding: pending, as: UTF8.self).unicodeScalars)
            pending.removeAll(keepingCapacity: true)
        }
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= text.count else { return nil }
            var v: UInt32 = 0
            for b in text[at..<at + 4] {
                let d: UInt32
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - UInt8(ascii: "A") + 10)
                default: return nil
                }
                v = v << 4 | d
            }
            return v
        }
        while i < text.count {
            switch text[i] {
            case UInt8(ascii: "\""):
                flushPlain(upTo: i)
                flushPending()
                return (String(scalars), i + 1)
            case UInt8(ascii: "\\"):
                flushPlain(upTo: i)
                flushPending()
                guard i + 1 < text.count else { return nil }
                let e = text[i + 1]
                i += 2
                switch e {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    guard var code = hex4(i) else { return nil }
                    i += 4
                    // A high surrogate followed by an escaped low one is one character.
                    if (0xD800...0xDBFF).contains(code), i + 6 <= text.count, text[i] == UInt8(ascii: "\\"),
                        text[i + 1] == UInt8(ascii: "u"), let low = hex4(i + 2), (0xDC00...0xDFFF).contains(low)
                    {
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    }
                    // A lone surrogate is not a character; the decoder refuses or replaces it.
                    scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                default: return nil
                }
                plain = i
            default:
                i += 1
            }
        }
        return nil
    }
}

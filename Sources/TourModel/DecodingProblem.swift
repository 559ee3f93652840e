import Foundation

/// A decoding error in one line: where in the document, and what. Keys come from the document
/// itself, so anything in them that would break the line or move a terminal's cursor is shown
/// escaped.
public enum DecodingProblem {
    public static func describe(_ error: any Error) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
        }
        let text: String
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            text = "\(path(context.codingPath + [key])): missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            let at = path(context.codingPath)
            text = at.isEmpty ? context.debugDescription : "\(at): \(context.debugDescription)"
        default:
            text = "not JSON"
        }
        return oneLine(text)
    }

    /// `text` with control characters shown as escapes (`\n`, `\u{1B}`).
    static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                out += scalar == "\n" ? "\\n" : scalar == "\t" ? "\\t" : "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func isControl(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || (0x7F...0x9F).contains(s.value) || s.value == 0x2028 || s.value == 0x2029
    }
}

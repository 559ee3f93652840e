import Foundation

/// Text on its way to a terminal. Titles, descriptions, subtitles and file names come from tours
/// and traces made by others, and a terminal obeys control characters in what it prints: an
/// escape sequence in a title could retitle the window, clear the screen, or rewrite what the
/// user sees. So every control character (the C0 set except the newline, DEL, and the C1 set
/// U+0080...U+009F, which some terminals take as 8-bit escapes) becomes U+FFFD, visibly there
/// but inert; a tab becomes a space. Newlines stay where a printer means a line break.
///
/// Printers that draw with escape sequences of their own (the live status view) sanitise the
/// pieces they are given, then add their colours. The one rule for walkscape's terminal and for
/// walkscape-server's logs and admin output (what a client sent it is just as foreign).
public enum TerminalText {
    public static func sanitized(_ text: String, keepingNewlines: Bool = true) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\n" && keepingNewlines {
                out.append(scalar)
            } else if scalar == "\t" {
                out.append(" ")
            } else if isControl(scalar) {
                out.append("\u{FFFD}")
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// One line: a newline inside (a title typed with one) becomes U+FFFD too.
    public static func line(_ text: String) -> String { sanitized(text, keepingNewlines: false) }

    /// A value someone gave, quoted back in an error: one line, and at most `limit` characters of
    /// it (a 1 MB `api-url` was printed three times over, a newline in one split the error).
    public static func echo(_ text: String, limit: Int = 100) -> String {
        let shown = line(text)
        guard shown.count > limit else { return "'\(shown)'" }
        return "'\(shown.prefix(limit))…' (\(shown.count) characters)"
    }

    /// C0, DEL and C1 controls, and the characters that reorder or hide text on screen: the bidi
    /// embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069; a slug holding U+202E
    /// showed reversed), the invisible spaces (U+200B, U+2060, U+FEFF) and the line and paragraph
    /// separators (U+2028, U+2029: a line break to some readers of a log). The joiners (U+200C,
    /// U+200D: emoji, scripts) and the direction marks (U+200E, U+200F) are text and stay.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x20 || (0x7F...0x9F).contains(value) { return true }
        guard value >= 0x200B else { return false }
        return (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
            || value == 0x200B || value == 0x2060 || value == 0xFEFF || value == 0x2028 || value == 0x2029
    }

    /// JSON for a terminal, the same data: JSON already escapes C0 controls, and DEL and the C1
    /// controls can only occur inside its strings, where `\u00XX` means the same character.
    public static func sanitizedJSON(_ json: Data) -> Data {
        // Almost every document holds neither DEL nor a C2 lead byte: give it back as it is
        // (a byte-at-a-time copy was nearly half of `analytics show --json`).
        let bytes = [UInt8](json)
        guard bytes.contains(where: { $0 == 0x7F || $0 == 0xC2 }) else { return json }
        var out = [UInt8]()
        out.reserveCapacity(bytes.count + 64)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == 0x7F {
                out.append(contentsOf: Array("\\u007f".utf8))
            } else if byte == 0xC2, i + 1 < bytes.count, (0x80...0x9F).contains(bytes[i + 1]) {
                out.append(contentsOf: Array(String(format: "\\u%04x", Int(bytes[i + 1])).utf8))
                i += 1
            } else {
                out.append(byte)
            }
            i += 1
        }
        return Data(out)
    }
}

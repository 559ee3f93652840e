/// How many terminal columns text takes: a character is two columns when it is East Asian wide or
/// an emoji shown as a picture, none when it is a lone zero-width mark, else one. Counting
/// characters instead put every column after an emoji title or a Japanese one out of line.
public enum TerminalWidth {
    public static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + width($1) }
    }

    public static func width(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.properties.isEmojiPresentation || (first.properties.isEmoji && scalars.contains("\u{FE0F}")) {
            return 2
        }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        return isWide(first.value) ? 2 : 1
    }

    static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            true
        default: false
        }
    }

    /// `text` and spaces to fill `columns` (never cut: a longer text pushes on).
    public static func padded(_ text: String, to columns: Int) -> String {
        text + String(repeating: " ", count: max(0, columns - of(text)))
    }

    /// `text` cut to at most `columns`, ending in "…" when cut.
    public static func truncated(_ text: String, to columns: Int) -> String {
        guard of(text) > columns else { return text }
        var out = ""
        var used = 0
        for character in text {
            let w = width(character)
            if used + w > columns - 1 { break }
            out.append(character)
            used += w
        }
        return out + "…"
    }
}

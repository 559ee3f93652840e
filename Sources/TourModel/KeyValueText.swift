import Foundation

/// The settings syntax both programs read (the walker's config file, the server's
/// `/etc/walkscape-server/server.conf`): `key = value` lines with `#` comments.
///
/// A `#` at the start of a line, or after a space or tab outside double quotes, starts a comment
/// that runs to the end of the line (so `https://host/#part` keeps its `#`). A value in double
/// quotes is taken as written, ` #` included. Keys are case-insensitive (lowercased here).
public enum KeyValueText {
    public struct Entry: Sendable, Hashable {
        /// 1-based.
        public var line: Int
        public var key: String
        public var value: String
    }

    /// A line that is neither blank, a comment, nor `key = value`.
    public struct Malformed: Error, Sendable, Hashable {
        public var line: Int
        public var message: String { "line \(line): expected key = value" }
    }

    public static func entries(_ text: String) throws(Malformed) -> [Entry] {
        var entries: [Entry] = []
        // A byte-order mark (an editor's on Windows) is not part of the first key; "\r\n" ends a
        // line as "\n" does (in Swift it is one Character, so it is split on as a newline).
        let body = text.hasPrefix("\u{FEFF}") ? Substring(text.dropFirst()) : Substring(text)
        for (index, rawLine) in body.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = withoutComment(rawLine).trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let eq = line.firstIndex(of: "=") else { throw Malformed(line: index + 1) }
            let key = line[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
            var value = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            entries.append(Entry(line: index + 1, key: key, value: value))
        }
        return entries
    }

    /// The line up to its comment: a `#` at the start or after a space or tab, outside quotes.
    public static func withoutComment(_ line: Substring) -> Substring {
        var inQuotes = false
        var previous: Character = " "
        for i in line.indices {
            let c = line[i]
            if c == "\"" { inQuotes.toggle() }
            if c == "#", !inQuotes, previous == " " || previous == "\t" { return line[..<i] }
            previous = c
        }
        return line
    }
}

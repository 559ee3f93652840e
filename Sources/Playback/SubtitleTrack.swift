import FileAccess
import Foundation

/// Subtitles for one narration, parsed from SRT, with a timeline that answers "which cue is on
/// screen at t" in O(log n).
///
/// The parser is lenient where real files differ from the spec and upstream parsers break: CRLF or
/// CR line ends, a UTF-8 byte order mark, `.` instead of `,` before the milliseconds, missing index
/// lines, missing blank lines between cues, trailing spaces, hours left out (`01:02,500`), and
/// position suffixes after the end time (`X1:...`). It is strict where guessing would show wrong
/// text: a line that is neither index, timing nor cue text, or a cue that ends before it starts,
/// is an error naming the line.
public struct SubtitleTrack: Sendable, Hashable {
    public struct Cue: Sendable, Hashable {
        /// The number on the cue's index line, when it had one.
        public var index: Int?
        /// Seconds from the start of the narration.
        public var start: Double
        public var end: Double
        /// The cue's lines joined with "\n", each without trailing spaces.
        public var text: String

        public init(index: Int? = nil, start: Double, end: Double, text: String) {
            self.index = index
            self.start = start
            self.end = end
            self.text = text
        }
    }

    /// The cues in file order.
    public let cues: [Cue]
    /// Non-overlapping spans of the timeline, sorted by start, each naming the cue shown then.
    /// Where cues overlap, the one that started last wins (as players draw the newest on top).
    private let spans: [Span]

    private struct Span: Sendable, Hashable {
        var start: Double
        var end: Double
        var cue: Int
    }

    /// Parses SRT text. `file` names the source in error messages.
    public init(parsing text: String, file: String = "subtitles") throws(PlaybackError) {
        cues = try Self.parse(text, file: file)
        spans = Self.timeline(cues)
    }

    /// Reads and parses an SRT file: UTF-8, or UTF-16 with a byte order mark; bytes that are not
    /// UTF-8 are read as Latin-1 (older European subtitle files).
    public init(contentsOf url: URL) throws(PlaybackError) {
        let data: Data
        do { data = try InputFile.contents(of: url.path) } catch { throw PlaybackError(input: error) }
        let text: String
        if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) {
            // Windows subtitle tools save UTF-16 with a byte order mark.
            text = String(data: data, encoding: .utf16) ?? ""
        } else {
            text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1) ?? ""
        }

        try self.init(parsing: text, file: url.path)
    }

    /// The cue on screen at `seconds` (start inclusive, end exclusive), if any. O(log n).
    public func cue(at seconds: Double) -> Cue? {
        var low = 0, high = spans.count
        // Find the last span starting at or before `seconds`.
        while low < high {
            let mid = (low + high) / 2
            if spans[mid].start <= seconds { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return nil }
        let span = spans[low - 1]
        return seconds < span.end ? cues[span.cue] : nil
    }

    // MARK: parsing

    private static func parse(_ text: String, file: String) throws(PlaybackError) -> [Cue] {
        var body = Substring(text)
        if body.first == "\u{FEFF}" { body = body.dropFirst() }
        // Split on LF, CRLF and lone CR alike. (Swift treats "\r\n" as one Character.)
        let lines = body.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        var cues: [Cue] = []
        var current: Cue?
        var textLines: [Substring] = []
        var pendingIndex: (value: Int, line: Int)?

        func close() {
            guard var cue = current else { return }
            cue.text = textLines.joined(separator: "\n")
            cues.append(cue)
            current = nil
            textLines = []
        }

        for (offset, raw) in lines.enumerated() {
            let number = offset + 1
            let line = raw.trimmingTrailingWhitespace()
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty {
                // A blank line ends the cue's text. An index with no timing after it is an error.
                if let index = pendingIndex {
                    throw PlaybackError.badSubtitles(
                        file: file, line: index.line, reason: "cue \(index.value) has no timing line after it")
                }
                if current != nil { close() }
                continue
            }
            // Inside a cue's text, a line with an arrow that is not a time range is text ("A --> B");
            // where a timing line is expected, it is an error.
            let inText = current != nil && pendingIndex == nil
            let range =
                inText
                ? (try? timing(trimmed, file: file, line: number)) ?? nil
                : try timing(trimmed, file: file, line: number)
            if let (start, end) = range {
                close()
                current = Cue(index: pendingIndex?.value, start: start, end: end, text: "")
                pendingIndex = nil
                continue
            }
            if let index = pendingIndex {
                throw PlaybackError.badSubtitles(
                    file: file, line: number,
                    reason:
                        "expected a timing line like '00:00:01,000 --> 00:00:02,500' after cue \(index.value), found '\(trimmed.prefix(60))'"
                )
            }
            if current != nil {
                // Cue text. A number alone on a line inside a cue is text too, unless a timing
                // line follows it (a missing blank line between cues).
                if trimmed.allSatisfy(\.isASCIIDigit), let next = lines.dropFirst(offset + 1).first,
                    (try? timing(
                        next.trimmingTrailingWhitespace().drop { $0 == " " || $0 == "\t" }, file: file, line: number + 1
                    )) != nil
                {
                    close()
                    pendingIndex = (Int(trimmed) ?? 0, number)
                    continue
                }
                textLines.append(line)
                continue
            }
            if trimmed.allSatisfy(\.isASCIIDigit), let value = Int(trimmed) {
                pendingIndex = (value, number)
                continue
            }
            throw PlaybackError.badSubtitles(
                file: file, line: number,
                reason: "expected a cue number or a timing line, found '\(trimmed.prefix(60))'")
        }
        if let index = pendingIndex {
            throw PlaybackError.badSubtitles(
                file: file, line: index.line, reason: "cue \(index.value) has no timing line after it")
        }
        close()
        return cues
    }

    /// Parses `00:00:01,000 --> 00:00:02,500 [position...]`; nil when the line has no arrow.
    private static func timing(_ line: Substring, file: String, line number: Int) throws(PlaybackError) -> (
        Double, Double
    )? {
        guard let arrow = line.range(of: "-->") else { return nil }
        let left = line[..<arrow.lowerBound].trimmingTrailingWhitespace()
        let right = line[arrow.upperBound...].drop { $0 == " " || $0 == "\t" }
        let endField = right.prefix { $0 != " " && $0 != "\t" }
        guard let start = timestamp(left), let end = timestamp(endField) else {
            throw PlaybackError.badSubtitles(
                file: file, line: number,
                reason: "'\(line.prefix(60))' is not a time range like '00:00:01,000 --> 00:00:02,500'")
        }
        guard end >= start else {
            throw PlaybackError.badSubtitles(file: file, line: number, reason: "the cue ends before it starts")
        }
        return (start, end)
    }

    /// `[HH:]MM:SS[(,|.)fff]` in seconds; hours may exceed two digits, the fraction has 1-3+ digits.
    static func timestamp(_ text: Substring) -> Double? {
        let text = text.drop { $0 == " " || $0 == "\t" }
        guard !text.isEmpty else { return nil }
        let fractionSplit = text.split(omittingEmptySubsequences: false) { $0 == "," || $0 == "." }
        guard fractionSplit.count <= 2 else { return nil }
        let clock = fractionSplit[0].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 2 || clock.count == 3 else { return nil }
        // Integers until one final division, so "00:00:03,538" is exactly the double nearest 3.538.
        var whole = 0
        for (i, field) in clock.enumerated() {
            guard !field.isEmpty, field.count <= 9, field.allSatisfy(\.isASCIIDigit), let value = Int(field) else {
                return nil
            }
            if i > 0 && value >= 60 { return nil }
            whole = whole * 60 + value
        }
        var scale = 1, fractionValue = 0
        if fractionSplit.count == 2 {
            let fraction = fractionSplit[1]
            guard !fraction.isEmpty, fraction.count <= 9, fraction.allSatisfy(\.isASCIIDigit), let value = Int(fraction)
            else { return nil }
            fractionValue = value
            for _ in 0..<fraction.count { scale *= 10 }
        }
        let (scaled, overflow) = whole.multipliedReportingOverflow(by: scale)
        guard !overflow else { return nil }
        let seconds = Double(scaled + fractionValue) / Double(scale)
        return seconds
    }

    /// Flattens possibly overlapping cues into spans; O(n log n) for the sort, O(n·k) for the sweep
    /// where k is the most cues on screen at once (one or two in practice).
    private static func timeline(_ cues: [Cue]) -> [Span] {
        let order = cues.indices.filter { cues[$0].end > cues[$0].start }
            .sorted { (cues[$0].start, $0) < (cues[$1].start, $1) }
        var boundaries = Set<Double>()
        for i in order { boundaries.insert(cues[i].start); boundaries.insert(cues[i].end) }
        let points = boundaries.sorted()
        var spans: [Span] = []
        var active: [Int] = []  // cue indices, in start order
        var next = 0
        for (k, point) in points.enumerated() where k + 1 < points.count {
            active.removeAll { cues[$0].end <= point }
            while next < order.count, cues[order[next]].start <= point {
                active.append(order[next])
                next += 1
            }
            guard let top = active.last else { continue }
            let end = points[k + 1]
            if let last = spans.last, last.cue == top, last.end == point {
                spans[spans.count - 1].end = end
            } else {
                spans.append(Span(start: point, end: end, cue: top))
            }
        }
        return spans
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { asciiValue.map { $0 >= 48 && $0 <= 57 } ?? false }
}

extension Substring {
    fileprivate func trimmingTrailingWhitespace() -> Substring {
        var end = endIndex
        while end > startIndex {
            let before = index(before: end)
            guard self[before] == " " || self[before] == "\t" else { break }
            end = before
        }
        return self[startIndex..<end]
    }
}

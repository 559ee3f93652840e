/// What an NMEA parse saw, for `walkscape trace` and for tests that pin the edge cases.
///
/// Plain counters rather than a dictionary: they are bumped once per sentence in the hot loop.
public struct NMEAStatistics: Sendable, Hashable, Codable {
    /// Why a line gave nothing. The raw value is what `trace --json` prints.
    public enum Rejection: String, Sendable, Hashable, Codable, CaseIterable {
        /// A `*HH` checksum that does not match the sentence.
        case badChecksum
        /// A known sentence whose fields do not parse (bad number, latitude 95, missing hemisphere).
        case malformed
        /// `$P...` manufacturer sentences: valid, but not ours to read.
        case proprietary
        /// A standard sentence this parser does not use (GSV, ZDA-less talkers, HDT, AIS `!`...).
        case unsupported
        /// RMC/GLL status `V`, GGA quality 0, FAA mode `N`: the receiver says it has no position.
        case noFix
        /// A line with no `$` or `!` at all (binary noise, truncated garbage).
        case notASentence
    }

    /// Every line, blank and comment lines included.
    public var lines = 0
    /// Lines that start (after any noise) with `$` or `!`.
    public var sentences = 0
    /// Sentences that contributed to a fix (RMC, GGA, GLL, GNS, GSA, GST, VTG, ZDA).
    public var used = 0
    public var blankLines = 0
    /// `#` lines: the corpus and many loggers annotate their files this way.
    public var comments = 0
    /// Fixes emitted (epochs that had a position).
    public var fixes = 0

    public var badChecksum = 0
    public var malformed = 0
    public var proprietary = 0
    public var unsupported = 0
    public var noFix = 0
    public var notASentence = 0

    public init() {}

    public subscript(_ reason: Rejection) -> Int {
        get {
            switch reason {
            case .badChecksum: badChecksum
            case .malformed: malformed
            case .proprietary: proprietary
            case .unsupported: unsupported
            case .noFix: noFix
            case .notASentence: notASentence
            }
        }
        set {
            switch reason {
            case .badChecksum: badChecksum = newValue
            case .malformed: malformed = newValue
            case .proprietary: proprietary = newValue
            case .unsupported: unsupported = newValue
            case .noFix: noFix = newValue
            case .notASentence: notASentence = newValue
            }
        }
    }

    /// Rejections with a non-zero count, keyed by the reason's raw value.
    /// Every line is exactly one of: blank, comment, not a sentence, or a sentence; and every
    /// sentence is exactly one of: used, or rejected for one reason other than `notASentence`.
    public var isConsistent: Bool {
        lines == blankLines + comments + notASentence + sentences
            && sentences == used + badChecksum + malformed + proprietary + unsupported + noFix
    }

    public var rejected: [String: Int] {
        var result: [String: Int] = [:]
        for reason in Rejection.allCases where self[reason] > 0 { result[reason.rawValue] = self[reason] }
        return result
    }
}

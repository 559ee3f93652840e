import Walk
import WalkRuntime

/// One thing `lint` has to say about a tour.
public struct LintFinding: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Codable, Comparable {
        /// The tour is broken for walkers: it must be fixed before publishing.
        case error
        /// The tour works, but a walker will notice.
        case warning

        public static func < (a: Severity, b: Severity) -> Bool { a == .error && b == .warning }
    }

    public var severity: Severity
    /// A stable name for the check (`audio-longer-than-walk`), for scripts and `--json`.
    public var check: String
    /// Where: `tour.json`, `points[2] (order 3, Ponte Vecchio)`, `media/it/03.mp3`.
    public var location: String
    public var message: String
    /// The tour language a finding about a narration is of (`--json` gives it then).
    public var language: String?

    public init(_ severity: Severity, _ check: String, _ location: String, _ message: String, language: String? = nil) {
        self.severity = severity
        self.check = check
        self.location = location
        self.message = message
        self.language = language
    }

    /// `warning: points[2] (order 3, Ponte Vecchio): radius 160 m is large enough ... [radius-too-large]`.
    public var description: String { "\(severity.rawValue): \(location): \(message) [\(check)]" }
}

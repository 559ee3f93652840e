/// What one pass over a trace file saw: the curator's first question about a recording is
/// "how much of this was usable, and why not the rest".
public struct TraceStatistics: Sendable, Hashable, Codable {
    public var format: TraceFile.Format
    /// NMEA sentences, or GPX points (`trkpt`, `rtept`, `wpt`).
    public var records = 0
    /// Fixes produced.
    public var fixes = 0
    /// Records that gave nothing, by reason (`badChecksum`, `proprietary`, `untimed`...).
    public var rejected: [String: Int] = [:]
    /// The NMEA counters in full, for NMEA traces.
    public var nmea: NMEAStatistics?
    /// Set when reading stopped early on an I/O error.
    public var readError: String?

    public init(format: TraceFile.Format) {
        self.format = format
    }
}

extension TraceStatistics {
    /// Why a trace gave no position, for the one-line refusal of `preview`, `map` and `trace`:
    /// `456 points read; unused: untimed 456 (GPX points need a <time>)`.
    public var unusedSummary: String {
        let noun = format == .nmea ? "sentences" : "points"
        var text = "\(records) \(noun) read"
        if !rejected.isEmpty {
            text +=
                "; unused: "
                + rejected.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        if format == .gpx, (rejected["untimed"] ?? 0) > 0 {
            text += " (GPX points need a <time> to be walked or previewed)"
        }
        return text
    }
}

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

/// How a point came to play, as the live service's dashboard counts it.
public enum TriggerType: String, Sendable, Hashable, Codable, CaseIterable {
    /// Entered its radius, confirmed by qualifying fixes.
    case gps
    /// Never entered, but queued because a later point was (`WalkPolicy.MissedPoints.play`).
    /// Reported to analytics as `gps` with `caughtUp: true`: GPS movement caused it.
    case caughtUp
    /// Triggered by the walker's `skip` command.
    case manual

    /// The `triggerType` property of `point_triggered` (the contract knows only gps and manual).
    public var analyticsValue: String { self == .manual ? "manual" : "gps" }
}

/// What the last attempt to reach the service found, for stamping `offline` on new events.
public enum Reach: Sendable, Hashable {
    /// No attempt yet.
    case unknown
    case reachable
    /// No connection could be made: the walker is offline, or the service is down.
    case unreachable
}

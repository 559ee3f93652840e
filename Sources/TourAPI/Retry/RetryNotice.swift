/// Told to an observer before each retry, so a person is not left wondering why a command waits.
public struct RetryNotice: Sendable, Hashable {
    /// `GET /tours`
    public var request: String
    /// The attempt about to be made (2 for the first retry).
    public var attempt: Int
    public var maxAttempts: Int
    public var delay: Duration
    /// `HTTP 503`, `connection refused`, ...
    public var reason: String
}

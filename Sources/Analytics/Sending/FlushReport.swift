/// What one flush did, and why it stopped.
public struct FlushReport: Sendable, Hashable {
    public enum Outcome: Sendable, Hashable {
        /// Nothing waits for the service any more.
        case emptied
        /// Stopped with events still waiting: out of time or patience. `unreachable` when the
        /// last try could not connect at all; `retryAfter` when the service asked for a pause.
        case stopped(reason: String, unreachable: Bool, retryAfter: Duration?)
        /// Stopped on something waiting will not cure (say, log in again).
        case failed(reason: String)
        /// The outbox itself could not be read or written.
        case outboxFailed(reason: String)
    }

    public var sent = 0
    public var quarantined = 0
    public var attempts = 0
    public var outcome: Outcome = .emptied
    /// Whether the last attempt reached the service (nil: no attempt was made).
    public var reached: Bool?

    public init() {}

    /// The reason it stopped short, if it did.
    public var problem: String? {
        switch outcome {
        case .emptied: nil
        case .stopped(let reason, _, _), .failed(let reason), .outboxFailed(let reason): reason
        }
    }
}

import TourAPI

/// How long the batcher waits before trying again after a batch could not be delivered: capped
/// exponential backoff with full jitter (the API client's `RetryPolicy` arithmetic), never less than
/// `floor`, and exactly what the service asked for when it sent `Retry-After` (coming back earlier
/// only earns another 429).
public struct SendSchedule: Sendable, Hashable {
    public var backoff: RetryPolicy
    public var floor: Duration

    public init(base: Duration, cap: Duration, floor: Duration) {
        backoff = RetryPolicy(maxAttempts: Int.max, baseDelay: base, maxDelay: cap)
        self.floor = floor
    }

    /// The wait after `failures` failed rounds in a row (1 for the first).
    public func wait(afterFailures failures: Int, retryAfter: Duration?, fraction: Double) -> Duration {
        if let retryAfter { return max(retryAfter, floor) }
        return max(floor, backoff.backoff(beforeRetry: max(1, failures), fraction: fraction))
    }

    /// `walkscape sync`: someone is waiting for the answer, so tries come quickly (0.25 s doubling
    /// to 8 s).
    public static let onDemand = SendSchedule(base: .milliseconds(250), cap: .seconds(8), floor: .milliseconds(50))
    /// The couple of seconds after a command that recorded events.
    public static let afterCommand = SendSchedule(base: .milliseconds(200), cap: .seconds(1), floor: .milliseconds(50))
    /// During a walk: at least 10 s apart, 15 s doubling to 5 minutes while the service cannot be
    /// reached, so an offline walk costs a connection attempt every few minutes at most (plus one
    /// after a tour event, when the walk is awake anyway).
    public static let background = SendSchedule(base: .seconds(15), cap: .seconds(300), floor: .seconds(10))
}

/// When to try a request again, and how long to wait first.
///
/// Waits are capped exponential backoff with full jitter: before retry `n` (1 for the first retry)
/// the wait is uniform in `[0, min(maxDelay, baseDelay · 2^(n-1))]`, so many clients that failed
/// together do not come back together. A `Retry-After` from the server replaces the backoff; one
/// longer than `maxRetryAfter` ends the attempts instead of being cut short, because coming back
/// earlier than the server asked only earns another refusal.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included (1: never retry).
    public var maxAttempts: Int
    /// Attempts in all while the service answers with a retryable status (408, 429, 5xx): it is
    /// there, only struggling. At least `maxAttempts`.
    public var serverErrorAttempts: Int
    public var baseDelay: Duration
    public var maxDelay: Duration
    public var maxRetryAfter: Duration

    public init(
        maxAttempts: Int = 4, serverErrorAttempts: Int? = nil, baseDelay: Duration = .milliseconds(250),
        maxDelay: Duration = .seconds(4), maxRetryAfter: Duration = .seconds(30)
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.serverErrorAttempts = max(self.maxAttempts, serverErrorAttempts ?? maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// One attempt, no retry.
    public static let once = RetryPolicy(maxAttempts: 1)

    /// For the few calls a long download depends on (a tour's details, points, manifest, the
    /// catalog before it): a burst of 5xx is ridden out over up to 10 attempts (short waits, at
    /// most 1 s each), while an unreachable service fails after as many attempts as any request.
    /// The one place a download's persistence is decided (it used to be rounds of the client's
    /// own attempts: 3 × 4).
    public static func persistent(_ base: RetryPolicy = RetryPolicy()) -> RetryPolicy {
        RetryPolicy(
            maxAttempts: base.maxAttempts, serverErrorAttempts: max(10, base.serverErrorAttempts),
            baseDelay: base.baseDelay, maxDelay: min(base.maxDelay, .seconds(1)), maxRetryAfter: base.maxRetryAfter)
    }

    /// The longest backoff before retry `retry` (1-based): `min(maxDelay, baseDelay · 2^(retry-1))`.
    public func ceiling(beforeRetry retry: Int) -> Duration {
        var ceiling = baseDelay
        var doublings = max(0, retry - 1)
        while doublings > 0, ceiling < maxDelay {
            ceiling *= 2
            doublings -= 1
        }
        return min(ceiling, maxDelay)
    }

    /// The backoff before retry `retry`: `fraction` (uniform in [0, 1), from a `JitterSource`) of
    /// the ceiling.
    public func backoff(beforeRetry retry: Int, fraction: Double) -> Duration {
        let unit = fraction.isFinite ? min(max(fraction, 0), 1) : 0
        return ceiling(beforeRetry: retry) * unit
    }

    /// The attempts allowed in all, given what the last one met.
    public func attempts(serverError: Bool) -> Int { serverError ? serverErrorAttempts : maxAttempts }

    /// The wait before another attempt after `attemptsMade` attempts, or nil when there is to be
    /// none: attempts used up, or the server asked for a longer pause than we will wait.
    public func delay(
        afterAttempt attemptsMade: Int, retryAfter: Duration?, fraction: Double, serverError: Bool = false
    ) -> Duration? {
        guard attemptsMade < attempts(serverError: serverError) else { return nil }
        if let retryAfter {
            return retryAfter <= maxRetryAfter ? max(retryAfter, .zero) : nil
        }
        return backoff(beforeRetry: attemptsMade, fraction: fraction)
    }
}

import Foundation
import Testing
import TourAPI

/// Backoff arithmetic with injected jitter: no clock, no waiting.
struct RetryPolicyTests {
    let policy = RetryPolicy(
        maxAttempts: 6, baseDelay: .milliseconds(250), maxDelay: .seconds(4), maxRetryAfter: .seconds(30))

    @Test func ceilingDoublesFromTheBaseUntilTheCap() {
        #expect(
            (1...7).map { policy.ceiling(beforeRetry: $0) }
                == [
                    .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(4),
                    .seconds(4),
                ])
        // No overflow however far the count goes.
        #expect(policy.ceiling(beforeRetry: 10_000) == .seconds(4))
    }

    @Test func fullJitterSpansZeroToTheCeiling() {
        for retry in 1...6 {
            let ceiling = policy.ceiling(beforeRetry: retry)
            #expect(policy.backoff(beforeRetry: retry, fraction: 0) == .zero)
            #expect(policy.backoff(beforeRetry: retry, fraction: 0.5) == ceiling / 2)
            let top = policy.backoff(beforeRetry: retry, fraction: 0.999_999)
            #expect(top < ceiling && top > ceiling * 0.999)
        }
    }

    @Test func fractionsOutsideTheUnitIntervalAreClamped() {
        #expect(policy.backoff(beforeRetry: 3, fraction: -2) == .zero)
        #expect(policy.backoff(beforeRetry: 3, fraction: 7) == .seconds(1))
        #expect(policy.backoff(beforeRetry: 3, fraction: .nan) == .zero)
    }

    @Test func attemptsAreBounded() {
        #expect(policy.delay(afterAttempt: 5, retryAfter: nil, fraction: 0.5) == .seconds(2))
        #expect(policy.delay(afterAttempt: 6, retryAfter: nil, fraction: 0.5) == nil)
        #expect(RetryPolicy.once.delay(afterAttempt: 1, retryAfter: nil, fraction: 0.5) == nil)
        #expect(RetryPolicy(maxAttempts: 0).maxAttempts == 1)
    }

    @Test func retryAfterReplacesTheBackoffUpToItsCap() {
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(7), fraction: 0.1) == .seconds(7))
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(30), fraction: 0.1) == .seconds(30))
        // Longer than we will wait: give up rather than come back before the server asked.
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(31), fraction: 0.1) == nil)
        #expect(policy.delay(afterAttempt: 1, retryAfter: .zero, fraction: 0.9) == .zero)
    }
}

import Foundation

/// The clock the retry loop reads and sleeps on: the wall clock in use, a recorded one in unit
/// tests, so retry timing is checked without waiting.
public protocol RetryTimer: Sendable {
    /// Now, for `Retry-After` dates and token expiry.
    func now() -> Date
    func sleep(for duration: Duration) async throws
}

import Foundation

/// The wall clock, and `Task.sleep` (so a cancelled command stops waiting at once).
public struct SystemRetryTimer: RetryTimer {
    public init() {}
    public func now() -> Date { Date() }
    public func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}

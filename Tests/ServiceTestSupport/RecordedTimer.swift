import Foundation
import TourAPI

/// A clock that moves only when slept on, recording each sleep: retry and back-off timing checked
/// without waiting. Shared by the tests of every part that waits between attempts (the API
/// client, the downloader, the analytics batcher).
public final class RecordedTimer: RetryTimer, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    private var slept: [Duration] = []

    public init(now: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = now }

    /// Every sleep asked for, in order.
    public var sleeps: [Duration] { lock.withLock { slept } }

    public func now() -> Date { lock.withLock { current } }

    /// Time passes without a sleep (a slow answer, say).
    public func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }

    public func sleep(for duration: Duration) async throws {
        lock.withLock {
            slept.append(duration)
            current += Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
    }
}

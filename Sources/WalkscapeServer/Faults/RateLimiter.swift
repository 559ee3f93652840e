import Foundation
import NIOConcurrencyHelpers

/// `--rate-limit N`: at most N requests per wall-clock second, across all clients (one fixed window,
/// so a test can fill it and watch the next request be refused).
final class RateLimiter: Sendable {
    private struct Window { var second: Int = 0; var count: Int = 0 }

    let limit: Int
    private let window = NIOLockedValueBox(Window())

    init(limit: Int) { self.limit = limit }

    /// Nil when admitted, else the seconds to wait (for `Retry-After`).
    func admit(now: Date = Date()) -> Int? {
        let second = Int(now.timeIntervalSince1970.rounded(.down))
        let count = window.withLockedValue { w -> Int in
            if w.second != second { w = Window(second: second, count: 0) }
            w.count += 1
            return w.count
        }
        return count <= limit ? nil : 1
    }
}

import Foundation

/// What went over the network during one download, counted as it happens (transfers run
/// concurrently).
final class TransferCounters: @unchecked Sendable {
    private let lock = NSLock()
    private var received: Int64 = 0
    private var requests = 0
    private var renewals = 0
    private var retries = 0

    func add(received bytes: Int64) { lock.withLock { received += bytes } }
    func addRequest() { lock.withLock { requests += 1 } }
    func addRenewal() { lock.withLock { renewals += 1 } }
    func addRetry() { lock.withLock { retries += 1 } }

    var snapshot: (received: Int64, requests: Int, renewals: Int, retries: Int) {
        lock.withLock { (received, requests, renewals, retries) }
    }
}

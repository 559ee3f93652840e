import Foundation
import Synchronization

/// Runs work that waits for the disk (a flush, a durable commit) on a thread of its own. Tasks
/// share the few threads of Swift's pool, one per core: a flush held there for milliseconds stops
/// every other task on that thread (a download's transfers, hashing and writing) for as long.
public enum DiskWait {
    private static let queue = DispatchQueue(label: "walkscape.disk-wait", attributes: .concurrent)

    public static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        try await start(body).value()
    }

    /// Starts `body` on a thread of its own, now or `after` a moment, and hands back the job, to be
    /// waited for later (a sender's commit of the batches delivered goes on while the next ones are
    /// sent). It is under way when this returns: its start needs no thread of Swift's pool.
    public static func start<T: Sendable, E: Error>(
        after delay: Duration = .zero, _ body: @escaping @Sendable () throws(E) -> T
    ) -> DiskJob<T, E> {
        let job = DiskJob<T, E>()
        let work: @Sendable () -> Void = { job.finish(Result { () throws(E) in try body() }) }
        if delay > .zero {
            let (seconds, attoseconds) = delay.components
            let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
            queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: work)
        } else {
            queue.async(execute: work)
        }
        return job
    }
}

/// Work started by `DiskWait.start`: whether it has ended, and its result (one waiter at a time).
public final class DiskJob<T: Sendable, E: Error>: Sendable {
    private enum State {
        case running(waiter: CheckedContinuation<Result<T, E>, Never>?)
        case ended(Result<T, E>)
    }
    private let state = Mutex(State.running(waiter: nil))

    init() {}

    public var isDone: Bool {
        state.withLock {
            if case .ended = $0 { return true }
            return false
        }
    }

    /// Its result, once it has ended.
    public func value() async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            let ended: Result<T, E>? = state.withLock {
                switch $0 {
                case .ended(let result):
                    return result
                case .running(let waiter):
                    precondition(waiter == nil, "a DiskJob is waited for by one task at a time")
                    $0 = .running(waiter: continuation)
                    return nil
                }
            }
            if let ended { continuation.resume(returning: ended) }
        }
        return try result.get()
    }

    fileprivate func finish(_ result: Result<T, E>) {
        let waiter = state.withLock {
            if case .running(let waiter) = $0 {
                $0 = .ended(result)
                return waiter
            }
            return nil
        }
        waiter?.resume(returning: result)
    }
}

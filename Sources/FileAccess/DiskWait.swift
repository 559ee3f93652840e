import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs work that waits for the disk (a flush, a durable commit) on a thread of its own. Tasks
/// share the few threads of Swift's pool, one per core: a flush held there for milliseconds stops
/// every other task on that thread (a download's transfers, hashing and writing) for as long.
public enum DiskWait {
    private static let queue = DispatchQueue(label: "walkscape.disk-wait", attributes: .concurrent)

    public static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Result { () throws(E) in try body() }) }
        }
        return try result.get()
    }

    /// The same for bookkeeping that nothing waits for yet (a sender's commit of the batches
    /// delivered, its read of the next ones): on threads that give way to every other thread for
    /// the CPU. On two cores, a commit woken beside the sending used to take the core the sending
    /// needed next, and each batch after a commit or a read waited 1 to 3 ms for it.
    public static func runInBackground<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T)
        async throws(E) -> T
    {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            BackgroundThreads.shared.submit { continuation.resume(returning: Result { () throws(E) in try body() }) }
        }
        return try result.get()
    }
}

/// Two threads at the lowest priority (nice 19), started on first use and kept for the process's
/// life. Two, so that a read goes on beside a commit waiting for the disk.
final class BackgroundThreads: @unchecked Sendable {
    static let shared = BackgroundThreads(threads: 2)

    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []

    init(threads: Int) {
        for index in 0..<threads {
            let thread = Thread { [self] in
                #if canImport(Glibc)
                    // This thread only: on Linux a thread's nice value is its own, and "0" names
                    // the calling thread (setpriority(2), BUGS).
                    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
                #endif
                while true { next()() }
            }
            thread.name = "walkscape.background-\(index)"
            thread.start()
        }
    }

    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func next() -> @Sendable () -> Void {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty { condition.wait() }
        return jobs.removeFirst()
    }
}

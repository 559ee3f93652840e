import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// How many media answers the server streams at once. Each holds its file open and about two
/// chunks of it in memory; one more is answered as S3 does when busy, 503 `SlowDown` with
/// `Retry-After`, and clients try again. Before, a server out of descriptors answered 404 (the
/// file's open failed and was called "no such key") or cut a body at its first byte.
///
/// The limit is `--max-downloads` (default 512), lowered to what the open-file limit allows: two
/// descriptors an answer (its socket and its file), after a reserve for the server's own (its
/// database, the tour folders' reloads, idle keep-alive connections).
final class MediaBudget: Sendable {
    /// Descriptors kept beyond those open when the server starts.
    static let reserve = 32

    private let cap: Atomic<Int>
    private let open = Atomic<Int>(0)

    init(limit: Int) { cap = Atomic(max(1, limit)) }

    var limit: Int { cap.load(ordering: .relaxed) }

    /// Lowers the limit to `limit` (what the open-file limit allows), never below one.
    func lower(to limit: Int) { cap.store(max(1, min(self.limit, limit)), ordering: .relaxed) }

    /// The answers `descriptorLimit` leaves room for, `inUse` descriptors being open already.
    static func allowed(descriptorLimit: Int, inUse: Int) -> Int {
        max(1, (descriptorLimit - inUse - reserve) / 2)
    }

    /// A place for one more answer, if there is one; given back with `give()`.
    func take() -> Bool {
        var current = open.load(ordering: .relaxed)
        let limit = self.limit
        while current < limit {
            let (exchanged, now) = open.compareExchange(
                expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = now
        }
        return false
    }

    func give() { open.subtract(1, ordering: .acquiringAndReleasing) }

    /// Answers in progress.
    var inProgress: Int { open.load(ordering: .relaxed) }

    /// Raises the soft open-file limit to the hard one (at most 65,536; the usual soft limit is
    /// 1,024) and returns the soft limit now in force.
    static func raiseDescriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        let wanted = min(limit.rlim_max, 65_536)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// Descriptors this process has open now.
    static func descriptorsInUse() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 64
    }
}

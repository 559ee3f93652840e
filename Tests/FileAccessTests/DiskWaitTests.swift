import FileAccess
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Work off Swift's pool: `run` for what a task waits for now, `runInBackground` for bookkeeping
/// that nothing waits for yet, which must give way to every other thread for the CPU.
@Suite struct DiskWaitTests {
    struct Refused: Error, Equatable { var why: String }

    @Test func backgroundWorkRunsAtTheLowestPriorityAndHandsBackItsResultOrError() async throws {
        let (niceness, inCaller) = await DiskWait.runInBackground { () -> (Int32, Bool) in
            errno = 0
            return (getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0), Thread.isMainThread)
        }
        #expect(niceness == 19)
        #expect(!inCaller)
        // The caller's own thread is left as it was.
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) != 19)
        await #expect(throws: Refused(why: "no")) {
            try await DiskWait.runInBackground { () throws(Refused) -> Int in throw Refused(why: "no") }
        }
        // Many at once all come back (two threads take them in turn).
        let sums = await withTaskGroup(of: Int.self) { group in
            for n in 1...50 { group.addTask { await DiskWait.runInBackground { n * 2 } } }
            return await group.reduce(0, +)
        }
        #expect(sums == 2 * (1...50).reduce(0, +))
    }

    @Test func waitedForWorkRunsAtTheProcesssPriority() async {
        let niceness = await DiskWait.run { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }
        #expect(niceness != 19)
    }
}

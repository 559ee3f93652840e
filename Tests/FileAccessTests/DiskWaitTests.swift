import FileAccess
import Foundation
import Synchronization
import Testing

/// Work off Swift's pool: `run` waits for it now; `start` sets it going and hands back the job, to
/// be waited for later.
@Suite struct DiskWaitTests {
    struct Refused: Error, Equatable { var why: String }

    @Test func aStartedJobIsUnderWayAtOnceAndHandsBackItsResultWhetherWaitedForBeforeOrAfterItEnds() async throws {
        // Under way without any await: the job itself opens the gate it then waits at.
        let gate = DispatchSemaphore(value: 0)
        let began = DispatchSemaphore(value: 0)
        let job = DiskWait.start { () -> Int in
            began.signal()
            _ = gate.wait(timeout: .now() + 10)
            return 42
        }
        #expect(began.wait(timeout: .now() + 10) == .success, "the job did not start by itself")
        #expect(!job.isDone)
        gate.signal()
        #expect(try await job.value() == 42)
        #expect(job.isDone)
        // Waited for after it ended.
        let quick = DiskWait.start { () -> String in "done" }
        while !quick.isDone { try await Task.sleep(for: .milliseconds(1)) }
        #expect(try await quick.value() == "done")
    }

    /// A job started `after` a moment begins no sooner, by itself, and is waited for as any.
    @Test func aJobStartedAfterAMomentBeginsNoSoonerAndByItself() async throws {
        let asked = ContinuousClock.now
        let began = Mutex<ContinuousClock.Instant?>(nil)
        let job = DiskWait.start(after: .milliseconds(30)) { () -> Int in
            began.withLock { $0 = .now }
            return 5
        }
        #expect(!job.isDone)
        // Not waited for: it starts by itself.
        let until = ContinuousClock.now + .seconds(10)
        while !job.isDone, ContinuousClock.now < until { try await Task.sleep(for: .milliseconds(1)) }
        #expect(try await job.value() == 5)
        let start = try #require(began.withLock { $0 })
        #expect(start - asked >= .milliseconds(30))
    }

    @Test func aTaskWaitingBeforeTheJobEndsIsWokenWithItsResult() async throws {
        let gate = DispatchSemaphore(value: 0)
        let job = DiskWait.start { () -> Int in
            _ = gate.wait(timeout: .now() + 10)
            return 7
        }
        let waiter = Task { try await job.value() }
        // Give the waiter time to wait (it would also pass if it came after the end).
        try await Task.sleep(for: .milliseconds(50))
        #expect(!job.isDone)
        gate.signal()
        #expect(try await waiter.value == 7)
    }

    @Test func errorsComeBackAsTheyWereThrown() async {
        let job = DiskWait.start { () throws(Refused) -> Int in throw Refused(why: "no") }
        await #expect(throws: Refused(why: "no")) { try await job.value() }
        await #expect(throws: Refused(why: "again")) {
            try await DiskWait.run { () throws(Refused) -> Int in throw Refused(why: "again") }
        }
    }

    @Test func manyJobsAtOnceAllComeBack() async {
        let sums = await withTaskGroup(of: Int.self) { group in
            for n in 1...50 { group.addTask { await DiskWait.run { n * 2 } } }
            return await group.reduce(0, +)
        }
        #expect(sums == 2 * (1...50).reduce(0, +))
    }
}

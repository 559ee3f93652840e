import Foundation
import Synchronization
import Testing

@testable import TourStore

/// Fetched narrations are judged on the judge's own thread, one at a time, and a download stopped
/// (Ctrl-C, a failed transfer) does not wait for the narrations not yet begun.
@Suite struct NarrationJudgeTests {
    @Test func narrationsAreJudgedOneAtATimeAndNotAtAllOnceTheDownloadIsCancelled() async throws {
        let checked = Mutex<[String]>([])
        let busy = Mutex(0)
        let mostAtOnce = Mutex(0)
        let release = DispatchSemaphore(value: 0)
        let judge = NarrationJudge(
            audioCheck: { url in
                let now = busy.withLock {
                    $0 += 1; return $0
                }
                mostAtOnce.withLock { $0 = max($0, now) }
                if url.lastPathComponent == "first" { release.wait() }
                checked.withLock { $0.append(url.lastPathComponent) }
                busy.withLock { $0 -= 1 }
                return nil
            }, measure: nil, alreadyMeasured: [:])
        let folder = URL(fileURLWithPath: "/nonexistent")
        let first = Task { await judge.judgeAside("a", at: folder.appendingPathComponent("first")) }
        // The first holds the judge's thread; the second waits behind it, and is cancelled there.
        while busy.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(1)) }
        let second = Task { await judge.judgeAside("b", at: folder.appendingPathComponent("second")) }
        let third = Task { await judge.judgeAside("c", at: folder.appendingPathComponent("third")) }
        try await Task.sleep(for: .milliseconds(20))
        second.cancel()
        release.signal()
        await first.value
        await second.value
        await third.value
        #expect(checked.withLock { $0 } == ["first", "third"])
        #expect(mostAtOnce.withLock { $0 } == 1)
    }
}

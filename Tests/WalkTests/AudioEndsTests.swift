import Testing

@testable import Walk
@testable import WalkRuntime

/// The real-time preview waits for the player to report each narration's end, but not forever.
@Suite("Preview performance: waiting for the end of a narration")
struct AudioEndsTests {
    @Test("an end reported before the wait counts")
    func reportedBefore() async {
        let ends = AudioEnds()
        await ends.record("a")
        #expect(await ends.wait(for: "a", atMost: .seconds(5)))
    }

    @Test("an end reported during the wait releases it")
    func reportedDuring() async {
        let ends = AudioEnds()
        let reporter = Task {
            try await Task.sleep(for: .milliseconds(50))
            await ends.record("a")
        }
        // Released by the report, not by the limit (generous: the test runner may be busy).
        #expect(await ends.wait(for: "a", atMost: .seconds(120)))
        _ = await reporter.result
    }

    @Test("a player that never reports does not hang the preview")
    func neverReported() async {
        let ends = AudioEnds()
        await ends.record("b")
        let clock = ContinuousClock()
        let start = clock.now
        #expect(await ends.wait(for: "a", atMost: .milliseconds(100)) == false)
        #expect(clock.now - start >= .milliseconds(100))
    }
}

import Foundation
import TestSupport
import Testing
import TourModel
import Walk

@testable import Playback

#if canImport(Glibc)
    import Glibc
    import WalkRuntime
#endif

/// `walkscape walk` end to end: a real gpsd on a pty fed the demo trace, the real binary, ALSA's
/// file device or a pseudo-terminal for the screen and keys.
@Suite(.serialized)
struct LiveWalkCommandTests {
    static let demo = TestPaths.packageRoot.appendingPathComponent("tours/demo")
    static let pointIDs = (1...5).map { "7c1e0b52-5d0a-4f3e-9a61-0d1f0000000\($0)" }
    static var epochs: [[String]] { DemoTrace.epochs }

    func feed(_ gpsd: GPSDHarness, _ range: Range<Int>, until stop: () -> Bool = { false }) async -> Int {
        await DemoTrace.feed(gpsd, range, until: stop)
    }

    func walk(
        _ args: [String], home: TemporaryDirectory, gpsd: GPSDHarness, pty: Bool = false,
        tour: URL = demo
    ) throws -> ChildProcess {
        try ChildProcess(
            TestPaths.walkscape,
            ["walk", tour.path, "--gpsd-port", "\(gpsd.port)", "--home", home.path] + args,
            environment: ["NO_COLOR": "1", "TERM": "xterm"], pty: pty)
    }

    /// The demo tour with short tones for narration (`ShortDemo`), in `dir`.
    static func shortDemo(in dir: TemporaryDirectory, narration: [Double] = ShortDemo.narration) throws -> URL {
        try ShortDemo.copy(to: dir.url.appendingPathComponent("demo"), narration: narration)
    }

    /// The demo tour (its real 13.4 s narration) with point 1's second cue at 1 s instead of 2.6 s,
    /// so a test that waits for the cue after the first one waits a second.
    static func earlyCues(in dir: TemporaryDirectory) throws -> URL {
        let root = dir.url.appendingPathComponent("demo")
        try FileManager.default.copyItem(at: demo, to: root)
        let srt = root.appendingPathComponent("media/en/01.srt")
        let text = try String(contentsOf: srt, encoding: .utf8)
            .replacingOccurrences(of: "00:00:00,000 --> 00:00:02,226", with: "00:00:00,000 --> 00:00:00,900")
            .replacingOccurrences(of: "00:00:02,626 --> 00:00:08,088", with: "00:00:01,000 --> 00:00:08,088")
        try text.write(to: srt, atomically: true, encoding: .utf8)
        return root
    }

    func events(_ home: TemporaryDirectory, named name: String) -> Int {
        journal(home).count { $0["name"] as? String == name }
    }

    /// The walk's analytics events, kept in the outbox (a tour folder's stay local).
    func journal(_ home: TemporaryDirectory) -> [[String: Any]] {
        KeptEvents.read(home)
    }

    func triggered(_ events: [[String: Any]]) -> [String] {
        events.filter { $0["name"] as? String == "point_triggered" }.compactMap { $0["pointId"] as? String }
    }

    /// The narrations of `tour` decoded back to back, as a walker hears them: each converted to
    /// the output's stereo 44.1 kHz (the narrations are 22.05 kHz mono).
    func referencePCM(_ points: ClosedRange<Int>, tour: URL = demo) throws -> Data {
        var pcm = Data()
        for n in points {
            let decoded = try FixtureAudio.referenceDecode(
                tour.appendingPathComponent(String(format: "media/en/%02d.mp3", n)))
            let format = PCMFormat(sampleRate: decoded.sampleRate, channels: decoded.channels)
            pcm += try SampleConverter.convertAll(
                decoded.pcm, from: format, to: PlaybackEngine.outputFormat(first: format))
        }
        return pcm
    }

    /// How two PCM streams of megabytes differ, in a line (the bytes themselves are not printed).
    static func difference(_ written: Data, _ expected: Data) -> String {
        let first = zip(written, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        return "written \(written.count) bytes, expected \(expected.count); first difference at "
            + (first.map(String.init) ?? "the shorter one's end")
    }

    /// Waits for `text` in the child's output and says when it appeared (nil on timeout), looking
    /// every 10 ms on a thread of its own: on the cooperative pool, tests beside it that held both
    /// of its threads made a 3 s narration seem to last 2.81 s.
    func whenSeen(_ child: ChildProcess, _ text: String, timeout: Double = 20) async -> ContinuousClock.Instant? {
        await onOwnThread {
            let deadline = ContinuousClock.now + .seconds(timeout)
            while ContinuousClock.now < deadline {
                if child.output.contains(text) { return .now }
                usleep(10_000)
            }
            return nil
        }
    }

    @Test func walkThroughRealGPSDHearsEveryPointInOrderAndWritesTheNarrationPCM() async throws {
        let home = try TemporaryDirectory()
        let tour = try Self.shortDemo(in: home)
        let gpsd = try GPSDHarness()
        let pcm = home.file("out.raw")
        let child = try walk(
            ["--no-input", "--audio-device", "file:'\(pcm.path)',raw"], home: home, gpsd: gpsd, tour: tour)
        #expect(await child.waitForOutput("gps: waiting for a fix", timeout: 10))
        _ = await feed(gpsd, 0..<Self.epochs.count) { !child.isRunning }
        let code = await child.wait(timeout: 30)
        #expect(code == 0, "output: \(child.output)")
        #expect(child.output.contains("Thank you for walking Florence with us."))
        #expect(triggered(journal(home)) == Self.pointIDs)
        #expect(journal(home).last?["name"] as? String == "tour_completed")
        // Each point's narration, every sample, at the gain its measured loudness gives it
        // (docs/loudness.md): the decoder's samples times the gain, converted to the output's
        // stereo 44.1 kHz (the narrations are 22.05 kHz mono), within the fixed point's step.
        let written = try Data(contentsOf: pcm).samples
        var start = 0
        for n in 1...5 {
            let file = tour.appendingPathComponent(String(format: "media/en/%02d.mp3", n))
            let decoded = try FixtureAudio.referenceDecode(file)
            let loudness = try LoudnessMeter.measure(file)
            let gain = LoudnessTarget.factor(
                LoudnessTarget.standard.gainDB(
                    for: loudness, peakOffsetDB: decoded.channels == 1 ? AudioQueue.monoUpmixDB : 0))
            #expect(abs(gain - 1) > 0.05, "point \(n): gain \(gain)")
            let levelled = decoded.pcm.samples.map { Int16(min(32767, max(-32768, (Double($0) * gain).rounded()))) }
            let reference = try SampleConverter.convertAll(
                levelled.withUnsafeBytes { Data($0) },
                from: PCMFormat(sampleRate: decoded.sampleRate, channels: decoded.channels),
                to: PCMFormat(sampleRate: 44100, channels: 2)
            ).samples
            let heard = written[start..<min(written.count, start + reference.count)]
            #expect(heard.count == reference.count, "point \(n)")
            let worst = zip(heard, reference).map { abs(Double($0) - Double($1)) }.max() ?? 0
            #expect(worst <= 2 + 32768 * gain * 0.0005, "point \(n): off by \(worst)")
            start += reference.count
        }
        #expect(start == written.count)
    }

    /// Outputs that take PCM as fast as it comes: a WAV file, and ALSA's `file` device.
    enum UnpacedOutput: String, CaseIterable { case wav, alsaFile }

    @Test(arguments: UnpacedOutput.allCases)
    func narrationToAnUnpacedOutputTakesRealTimeAndThePointBehindItWaits(output: UnpacedOutput) async throws {
        let home = try TemporaryDirectory()
        let tour = try Self.shortDemo(in: home, narration: ShortDemo.longFirst)
        let gpsd = try GPSDHarness()
        let target = home.file(output == .wav ? "out.wav" : "out.raw")
        // The decoder's own samples (--loudness off): this test is about timing, not level.
        let flags =
            (output == .wav ? ["--output", target.path] : ["--audio-device", "file:'\(target.path)',raw"])
            + ["--loudness", "off"]
        let child = try walk(["--no-input"] + flags, home: home, gpsd: gpsd, tour: tour)
        #expect(await child.waitForOutput("gps: waiting for a fix", timeout: 10))
        async let fed = feed(gpsd, 0..<DemoTrace.afterPoint2) { child.output.contains("triggered: 2. ") }
        let playing1 = await whenSeen(child, "playing: 1. ")
        let heard1 = await whenSeen(child, "heard: 1/5")
        let playing2 = await whenSeen(child, "playing: 2. ")
        _ = await fed
        #expect(await child.waitForOutput("heard: 2/5", timeout: 15))
        child.signal(SIGTERM)
        #expect(await child.wait(timeout: 10) == 128 + SIGTERM, "output: \(child.output)")

        // Point 1's narration lasts ShortDemo.longFirst[0] s of wall-clock time; point 2 triggers
        // meanwhile and waits. (Written unpaced, it would be over in milliseconds; the lines are
        // seen by polling, late by up to a few hundred milliseconds on a machine busy with the
        // rest of the suite: 2.81 s once, with 150 ms allowed.)
        let start = try #require(playing1), end = try #require(heard1), next = try #require(playing2)
        let lasts = Duration.milliseconds(Int64(ShortDemo.longFirst[0] * 1000) - 500)
        #expect(end - start >= lasts, "narration 1 was heard in \(end - start)")
        #expect(next - start >= lasts, "narration 2 started \(next - start) after narration 1")
        let lines = child.output.split(separator: "\n").map(String.init)
        func index(_ prefix: String) -> Int { lines.firstIndex { $0.hasPrefix(prefix) } ?? -1 }
        #expect(index("triggered: 2. ") < index("heard: 1/5"), "\(lines)")
        // And what was written is still exactly the decoded narrations, back to back.
        let written = output == .wav ? try FixtureAudio.readWAV(target).pcm : try Data(contentsOf: target)
        let reference = try referencePCM(1...2, tour: tour)
        #expect(written == reference, "\(Self.difference(written, reference))")
    }

    @Test func killedWalkResumesAtTheRightPointWithoutReplaying() async throws {
        let home = try TemporaryDirectory()
        let tour = try Self.shortDemo(in: home)
        let gpsd = try GPSDHarness()
        let first = try walk(
            ["--no-input", "--audio-device", "file:'\(home.file("a.raw").path)',raw"], home: home,
            gpsd: gpsd, tour: tour)
        #expect(await first.waitForOutput("gps: waiting for a fix", timeout: 10))
        _ = await feed(gpsd, 0..<DemoTrace.afterPoint2)
        #expect(await first.waitForOutput("heard: 2/5", timeout: 15))
        first.signal(SIGKILL)
        #expect(await first.wait(timeout: 10) == 128 + SIGKILL)
        #expect(triggered(journal(home)) == Array(Self.pointIDs.prefix(2)))

        let second = try walk(
            ["--no-input", "--audio-device", "file:'\(home.file("b.raw").path)',raw", "--loudness", "off"], home: home,
            gpsd: gpsd, tour: tour)
        #expect(await second.waitForOutput("Resuming", timeout: 10))
        #expect(second.output.contains("2 of 5 heard; next is 3. "))
        #expect(await second.waitForOutput("gps: waiting for a fix", timeout: 10))
        // The whole walk again, from the Duomo: points 1 and 2 are passed again but never replayed.
        _ = await feed(gpsd, 0..<Self.epochs.count) { !second.isRunning }
        #expect(await second.wait(timeout: 30) == 0, "output: \(second.output)")
        #expect(triggered(journal(home)) == Self.pointIDs)
        let resumed = try Data(contentsOf: home.file("b.raw")), reference = try referencePCM(3...5, tour: tour)
        #expect(resumed == reference, "\(Self.difference(resumed, reference))")
    }

    /// A walk without audio that hears points 1 and 2 and is then stopped by `signal`; the walk
    /// and the epoch the trace stopped at (point 3 still ahead).
    func walkTwoPointsAndStop(
        home: TemporaryDirectory, gpsd: GPSDHarness, tour: URL, signal: Int32
    ) async throws -> (ChildProcess, Int) {
        let first = try walk(["--no-input", "--no-audio"], home: home, gpsd: gpsd, tour: tour)
        #expect(await first.waitForOutput("gps: waiting for a fix", timeout: 10))
        let stoppedAt = await feed(gpsd, 0..<DemoTrace.afterPoint2)
        #expect(await first.waitForOutput("heard: 2/5", timeout: 15))
        #expect(!first.output.contains("triggered: 3. "), "output: \(first.output)")
        first.signal(signal)
        #expect(await first.wait(timeout: 10) == 128 + signal, "output: \(first.output)")
        return (first, stoppedAt)
    }

    /// SIGTERM here; every ending signal takes the same path, and
    /// `aSignalRestoresTheTerminalAndRecordsTheAbandonment` sends each of them.
    @Test(arguments: [SIGTERM])
    func aWalkEndedBySignalResumesAtTheNextPointInTheSameSession(signal: Int32) async throws {
        let home = try TemporaryDirectory()
        let tour = try Self.shortDemo(in: home)
        let gpsd = try GPSDHarness()
        let (first, stoppedAt) = try await walkTwoPointsAndStop(home: home, gpsd: gpsd, tour: tour, signal: signal)
        #expect(first.output.contains("Walk ended early; progress saved."))
        #expect(triggered(journal(home)) == Array(Self.pointIDs.prefix(2)))
        #expect(journal(home).last?["name"] as? String == "tour_abandoned")

        let second = try walk(["--no-input", "--no-audio"], home: home, gpsd: gpsd, tour: tour)
        #expect(await second.waitForOutput("Resuming", timeout: 10))
        #expect(
            second.output.contains("Resuming Florence: from the Duomo to Palazzo Pitti: 2 of 5 heard; next is 3. "),
            "output: \(second.output)")
        #expect(await second.waitForOutput("gps: waiting for a fix", timeout: 10))
        _ = await feed(gpsd, stoppedAt..<DemoTrace.afterPoint3) { second.output.contains("triggered: 3. ") }
        #expect(await second.waitForOutput("triggered: 3. ", timeout: 10))
        #expect(triggered(journal(home)) == Array(Self.pointIDs.prefix(3)))  // 1 and 2 never again
        #expect(events(home, named: "tour_started") == 1)  // the same walk session
        second.signal(SIGTERM)
        #expect(await second.wait(timeout: 10) == 128 + SIGTERM, "output: \(second.output)")
    }

    /// A curator's edit of the points of the tour folder `tour`, written back.
    static func editPoints(of tour: URL, _ edit: (inout [[String: Any]]) -> Void) throws {
        let file = tour.appendingPathComponent("tour.json")
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var points = try #require(json["points"] as? [[String: Any]])
        edit(&points)
        json["points"] = points
        try JSONSerialization.data(withJSONObject: json).write(to: file)
    }

    /// An update or an edit between two sittings of a walk: the points heard stay heard by id.
    @Test func aWalkResumesAfterItsTourLostAPointAndSaysSo() async throws {
        let home = try TemporaryDirectory()
        let tour = try Self.shortDemo(in: home)
        let gpsd = try GPSDHarness()
        let (_, stoppedAt) = try await walkTwoPointsAndStop(home: home, gpsd: gpsd, tour: tour, signal: SIGTERM)

        // The curator drops point 4; point 5 becomes the fourth.
        try Self.editPoints(of: tour) { points in
            points.remove(at: 3)
            points[3]["order"] = 4
        }

        let second = try walk(["--no-input", "--no-audio"], home: home, gpsd: gpsd, tour: tour)
        #expect(await second.waitForOutput("Resuming", timeout: 10), "output: \(second.output)")
        #expect(
            second.output.contains(
                "The tour's points changed since this walk was saved (1 point removed); the walk goes on from where it was."
            ), "output: \(second.output)")
        #expect(second.output.contains("2 of 4 heard; next is 3. "), "output: \(second.output)")
        _ = await feed(gpsd, stoppedAt..<Self.epochs.count) { !second.isRunning }
        #expect(await second.wait(timeout: 30) == 0, "output: \(second.output)")
        #expect(triggered(journal(home)) == [0, 1, 2, 4].map { Self.pointIDs[$0] })
        #expect(events(home, named: "tour_started") == 1)  // the same walk session
    }

    /// The curator renames the ids of the two points heard, where they stand: they are the same
    /// points, still heard. They were new points to the walk, which passed them over or played
    /// them again.
    @Test func aWalkResumesAfterItsTourRenamedPointsItHeardAndDoesNotHearThemAgain() async throws {
        let home = try TemporaryDirectory()
        let tour = try Self.shortDemo(in: home)
        let gpsd = try GPSDHarness()
        let (_, stoppedAt) = try await walkTwoPointsAndStop(home: home, gpsd: gpsd, tour: tour, signal: SIGTERM)

        try Self.editPoints(of: tour) { points in
            points[0]["id"] = "duomo"
            points[1]["id"] = "orsanmichele"
        }

        let second = try walk(["--no-input", "--no-audio"], home: home, gpsd: gpsd, tour: tour)
        #expect(await second.waitForOutput("Resuming", timeout: 10), "output: \(second.output)")
        #expect(
            second.output.contains(
                "The tour's points changed since this walk was saved (2 points renamed where they stand, still heard as before); the walk goes on from where it was."
            ), "output: \(second.output)")
        #expect(!second.output.contains("may be ones you heard"), "output: \(second.output)")
        #expect(second.output.contains("2 of 5 heard; next is 3. "), "output: \(second.output)")
        _ = await feed(gpsd, stoppedAt..<Self.epochs.count) { !second.isRunning }
        #expect(await second.wait(timeout: 30) == 0, "output: \(second.output)")
        #expect(triggered(journal(home)) == Self.pointIDs)
    }

    @Test func aWalkQuitMidNarrationPlaysThatPointAgainFromItsStartOnResume() async throws {
        let home = try TemporaryDirectory()
        let tour = try Self.shortDemo(in: home)
        let gpsd = try GPSDHarness()
        let first = try walk(["--no-input", "--no-audio"], home: home, gpsd: gpsd, tour: tour)
        #expect(await first.waitForOutput("gps: waiting for a fix", timeout: 10))
        let stoppedAt = await feed(gpsd, 0..<DemoTrace.afterPoint1) { first.output.contains("playing: 1. ") }
        #expect(await first.waitForOutput("playing: 1. ", timeout: 10))
        first.signal(SIGINT)
        #expect(await first.wait(timeout: 10) == 130)
        #expect(!first.output.contains("heard: 1/5"))

        let second = try walk(["--no-input", "--no-audio"], home: home, gpsd: gpsd, tour: tour)
        #expect(await second.waitForOutput("Resuming", timeout: 10))
        #expect(
            second.output.contains("0 of 5 heard; 1. Piazza del Duomo plays again from its start."),
            "output: \(second.output)")
        #expect(await second.waitForOutput("playing: 1. Piazza del Duomo", timeout: 10))  // before any fix
        #expect(await second.waitForOutput("heard: 1/5", timeout: 10))
        _ = await feed(gpsd, stoppedAt..<Self.epochs.count) { !second.isRunning }
        #expect(await second.wait(timeout: 30) == 0, "output: \(second.output)")
        #expect(triggered(journal(home)) == Self.pointIDs)
        // One walk session: started once, abandoned when the walker stopped, completed at the end.
        #expect(events(home, named: "tour_started") == 1)
        #expect(events(home, named: "tour_abandoned") == 1)
        #expect(journal(home).last?["name"] as? String == "tour_completed")
        #expect(journal(home).last?["properties"].flatMap { ($0 as? [String: Any])?["pointsVisited"] as? Int } == 5)
    }

    @Test func progressSavedByAnEarlierVersionUnderTheOldFileNameIsResumed() async throws {
        let home = try TemporaryDirectory()
        let gpsd = try GPSDHarness()
        let tourID = "3b6f7a0e-2c55-4c1e-8f4a-7d2f5e0c9a10"
        var saved = WalkProgress(tourID: tourID, language: "en", pointIDs: Self.pointIDs)
        saved.startedAt = Date(timeIntervalSince1970: 1_776_500_000)
        for i in 0..<2 { saved.points[i].status = .played; saved.points[i].triggerType = .gps }
        saved.nextIndex = 2
        saved.lastHeard = Self.pointIDs[1]
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let legacy = home.file("state/progress/\(tourID).json")
        try FileManager.default.createDirectory(
            at: legacy.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(saved).write(to: legacy)

        let child = try walk(["--no-input", "--no-audio"], home: home, gpsd: gpsd)
        #expect(await child.waitForOutput("Resuming", timeout: 10))
        #expect(child.output.contains("2 of 5 heard; next is 3. "), "output: \(child.output)")
        child.signal(SIGTERM)
        #expect(await child.wait(timeout: 10) == 128 + SIGTERM)
        let files = try FileManager.default.contentsOfDirectory(atPath: legacy.deletingLastPathComponent().path)
        #expect(!files.contains("\(tourID).json"))
        #expect(files.filter { $0.hasSuffix(".progress.json") }.count == 1, "\(files)")
    }

    @Test func aSecondWalkOfTheSameTourIsRefusedWhileTheFirstRuns() async throws {
        let home = try TemporaryDirectory()
        let gpsd = try GPSDHarness()
        let first = try walk(["--no-input", "--no-audio"], home: home, gpsd: gpsd)
        #expect(await first.waitForOutput("gps: waiting for a fix", timeout: 10))

        let second = try walk(["--no-input", "--no-audio"], home: home, gpsd: gpsd)
        #expect(await second.wait(timeout: 10) == 69, "output: \(second.output)")
        #expect(
            second.output
                == "walkscape: another walk of Florence: from the Duomo to Palazzo Pitti is running (pid \(first.pid)); end it first, or wait for it to end\n"
        )
        #expect(first.isRunning)

        first.signal(SIGTERM)
        #expect(await first.wait(timeout: 10) == 128 + SIGTERM)
        // The lock went with the first walk: a new one starts (and resumes its walk).
        let third = try walk(["--no-input", "--no-audio"], home: home, gpsd: gpsd)
        #expect(await third.waitForOutput("gps: waiting for a fix", timeout: 10), "output: \(third.output)")
        third.signal(SIGTERM)
        #expect(await third.wait(timeout: 10) == 128 + SIGTERM)
    }

    /// A walk without audio of the short demo in a new home, fed the trace until point 1 triggers:
    /// the home, gpsd, the walk, and the epoch reached.
    func walkToPointOne() async throws -> (TemporaryDirectory, GPSDHarness, ChildProcess, Int) {
        let home = try TemporaryDirectory()
        let tour = try Self.shortDemo(in: home)
        let gpsd = try GPSDHarness()
        let child = try walk(["--no-input", "--no-audio"], home: home, gpsd: gpsd, tour: tour)
        #expect(await child.waitForOutput("gps: waiting for a fix", timeout: 10))
        let reached = await feed(gpsd, 0..<DemoTrace.afterPoint1) { child.output.contains("triggered: 1. ") }
        #expect(await child.waitForOutput("triggered: 1. ", timeout: 10))
        return (home, gpsd, child, reached)
    }

    /// A full disk, made real with a file size limit (`prlimit`, RLIMIT_FSIZE) that works for root
    /// and for anyone, and can be set and lifted while the walk runs: once point 1 is recorded,
    /// writes past 350 bytes fail with EFBIG (the outbox's write-ahead log is larger already, and a
    /// progress file does not fit).
    @Test func aFullDiskWarnsOnceTheWalkGoesOnAndEverythingIsWrittenWhenThereIsRoomAgain() async throws {
        let prlimit = try #require(which("prlimit"), "prlimit (util-linux) is needed")
        let (home, gpsd, child, full) = try await walkToPointOne()
        #expect(triggered(journal(home)) == [Self.pointIDs[0]])
        let limited = try run(prlimit, ["--pid", "\(child.pid)", "--fsize=350:unlimited"])
        #expect(limited.status == 0, "\(limited.stderr)")
        let stoppedAt = await feed(gpsd, full..<DemoTrace.afterPoint2)
        #expect(await child.waitForOutput("heard: 2/5", timeout: 15))
        #expect(child.isRunning, "output: \(child.output)")
        let notes = child.output.split(separator: "\n").filter { $0.hasPrefix("note: ") }
        #expect(notes.count == 1, "warned once: \(notes)")
        #expect(notes.first?.contains("cannot ") == true && notes.first?.contains("File too large") == true, "\(notes)")
        // What was recorded before the disk filled is there; nothing after it, nothing half-written.
        #expect(journal(home).compactMap { $0["name"] as? String } == ["tour_started", "point_triggered"])

        // Room again: the next change writes what was held back, in order, then goes on.
        let lifted = try run(prlimit, ["--pid", "\(child.pid)", "--fsize=unlimited:unlimited"])
        #expect(lifted.status == 0, "\(lifted.stderr)")
        _ = await feed(gpsd, stoppedAt..<Self.epochs.count) { !child.isRunning }
        #expect(await child.wait(timeout: 30) == 0, "output: \(child.output)")
        #expect(child.output.contains("note: saving works again"))
        #expect(
            journal(home).compactMap { $0["name"] as? String }
                == ["tour_started"] + Array(repeating: "point_triggered", count: 5) + ["tour_completed"])
        #expect(triggered(journal(home)) == Self.pointIDs)
        #expect(
            Set(journal(home).compactMap { ($0["properties"] as? [String: Any])?["eventId"] as? String }).count == 7)
        let progress = try FileManager.default.contentsOfDirectory(atPath: home.file("state/progress").path)
        #expect(progress.contains { $0.hasSuffix(".progress.json") }, "\(progress)")
    }

    /// Stopped while nothing can be saved: the walk does not say to run it again to resume.
    @Test func aWalkStoppedWhileNothingCanBeSavedDoesNotPromiseAResume() async throws {
        let prlimit = try #require(which("prlimit"), "prlimit (util-linux) is needed")
        let (_, _, child, _) = try await walkToPointOne()
        #expect(try run(prlimit, ["--pid", "\(child.pid)", "--fsize=0:unlimited"]).status == 0)
        child.signal(SIGTERM)
        #expect(await child.wait(timeout: 10) == 128 + SIGTERM, "output: \(child.output)")
        #expect(
            child.output.contains(
                "Walk ended early; progress NOT saved, so a walk started again resumes from the last progress saved, if any."
            ), "output: \(child.output)")
        #expect(!child.output.contains("to resume, or add --restart"), "output: \(child.output)")
    }

    @Test func aLogThatCannotBeWrittenDoesNotStopTheWalk() async throws {
        // `walk --no-input > walk.log` on a full disk: the log is lost, the walk is not.
        let home = try TemporaryDirectory()
        let tour = try Self.shortDemo(in: home)
        let gpsd = try GPSDHarness()
        let child = try ChildProcess(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c", "exec \"$@\" > /dev/full", "sh", TestPaths.walkscape.path, "walk", tour.path,
                "--no-input", "--no-audio", "--gpsd-port", "\(gpsd.port)", "--home", home.path,
            ])
        // Its output goes nowhere, so the sign it started is its walk's lock (state/progress),
        // taken just before it connects to gpsd; gpsd greets it about 0.15 s later.
        let progressFolder = home.file("state/progress").path
        let started = Date()
        while child.isRunning, Date().timeIntervalSince(started) < 20,
            !((try? FileManager.default.contentsOfDirectory(atPath: progressFolder)) ?? []).contains(where: {
                $0.hasSuffix(".lock")
            })
        {
            try await Task.sleep(for: .milliseconds(5))
        }
        try await Task.sleep(for: .milliseconds(300))
        // The events are read from the outbox (the output goes nowhere): every tenth epoch is enough.
        var epochs = 0
        _ = await feed(gpsd, 0..<Self.epochs.count) {
            epochs += 1
            return !child.isRunning || (epochs % 10 == 0 && triggered(journal(home)).count == 2)
        }
        #expect(child.isRunning, "output: \(child.output)")  // it used to trap on its first log line
        #expect(triggered(journal(home)) == Array(Self.pointIDs.prefix(2)))
        child.signal(SIGTERM)
        #expect(await child.wait(timeout: 10) == 128 + SIGTERM, "output: \(child.output)")
        #expect(journal(home).last?["name"] as? String == "tour_abandoned")
    }

    @Test func aWalkPausedWhenItStoppedGoesOnWhenResumedWithoutKeys() async throws {
        let home = try TemporaryDirectory()
        let tour = try Self.shortDemo(in: home)
        let gpsd = try GPSDHarness()
        let store = ProgressStore(folder: home.file("state/progress"))
        var saved = WalkProgress(
            tourID: "3b6f7a0e-2c55-4c1e-8f4a-7d2f5e0c9a10", language: "en", pointIDs: Self.pointIDs)
        saved.startedAt = Date(timeIntervalSince1970: 1_776_500_000)
        saved.points[0].status = .playing
        saved.nextIndex = 1
        saved.playing = .init(pointID: Self.pointIDs[0], isReplay: false)
        saved.isPaused = true
        try store.save(saved)
        let child = try walk(["--no-input", "--no-audio"], home: home, gpsd: gpsd, tour: tour)
        #expect(await child.waitForOutput("Resuming", timeout: 10))
        #expect(
            child.output.contains("0 of 5 heard; 1. Piazza del Duomo plays again from its start."), "\(child.output)")
        #expect(await child.waitForOutput("heard: 1/5", timeout: 10), "output: \(child.output)")
        child.signal(SIGTERM)
        #expect(await child.wait(timeout: 10) == 128 + SIGTERM)
    }

    @Test func restartWithASoundCardThatCannotBeOpenedForgetsNothing() throws {
        let home = try TemporaryDirectory()
        let store = ProgressStore(folder: home.file("state/progress"))
        var saved = WalkProgress(
            tourID: "3b6f7a0e-2c55-4c1e-8f4a-7d2f5e0c9a10", language: "en", pointIDs: Self.pointIDs)
        saved.startedAt = Date(timeIntervalSince1970: 1_776_500_000)
        saved.points[0].status = .played
        saved.nextIndex = 1
        try store.save(saved)
        let result = try runWalkscape(
            ["walk", Self.demo.path, "--restart", "--no-input", "--audio-device", "hw:7,7"], home: home)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("walkscape: no sound card"))
        #expect(try store.load(tourID: saved.tourID) == saved)  // the walk never began: nothing forgotten
    }

    @Test func gpsdGoingAwayIsShownAndTheWalkGoesOnWhenItReturns() async throws {
        let home = try TemporaryDirectory()
        let tour = try Self.shortDemo(in: home)
        let gpsd = try GPSDHarness()
        let child = try walk(
            ["--no-input", "--audio-device", "null", "--gpsd-timeout", "1"], home: home, gpsd: gpsd,
            tour: tour)
        #expect(await child.waitForOutput("gps: waiting for a fix", timeout: 10))
        let stoppedAt = await feed(gpsd, 0..<DemoTrace.afterPoint1) { child.output.contains("playing: 1. ") }
        #expect(await child.waitForOutput("playing: 1. ", timeout: 10))
        gpsd.stop()
        #expect(await child.waitForOutput("gps: no gpsd (retrying)", timeout: 10))
        let countWhileDown = triggered(journal(home)).count
        #expect(countWhileDown < Self.pointIDs.count)  // points are left to trigger once gpsd is back
        try await Task.sleep(for: .seconds(1))  // the --gpsd-timeout, once more
        #expect(triggered(journal(home)).count == countWhileDown)  // nothing triggers from stale data
        try gpsd.start()
        _ = await feed(gpsd, stoppedAt..<Self.epochs.count) { !child.isRunning }
        #expect(await child.wait(timeout: 30) == 0, "output: \(child.output)")
        #expect(triggered(journal(home)) == Self.pointIDs)
        let states = child.output.split(separator: "\n").filter { $0.hasPrefix("gps: ") }
        #expect(states.contains("gps: no gpsd (retrying)"))
        // A fix shown again once gpsd is back (the trace may end before the last narration does, so
        // the very last state can be "waiting for a fix").
        let afterReturn = states.drop { $0 != "gps: no gpsd (retrying)" }
        #expect(afterReturn.contains { $0 == "gps: 3D fix" || $0 == "gps: 2D fix" }, "\(states)")
    }

    /// Every signal that ends a walk goes the same way: the walk is recorded as abandoned (and
    /// resumes later), and the terminal is given back as it was: cooked mode, echo, the main
    /// screen, a visible cursor.
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP, SIGQUIT])
    func aSignalRestoresTheTerminalAndRecordsTheAbandonment(signal: Int32) async throws {
        let home = try TemporaryDirectory()
        let gpsd = try GPSDHarness()
        let child = try walk(["--no-audio"], home: home, gpsd: gpsd, pty: true)
        #expect(await child.waitForOutput("\u{1B}[?1049h", timeout: 10))  // the status screen is up
        #expect(await child.waitForOutput("Next 1. ", timeout: 10))
        child.signal(signal)
        #expect(await child.wait(timeout: 10) == 128 + signal)
        let out = child.output
        let leave = try #require(out.range(of: "\u{1B}[?1049l", options: .backwards))
        #expect(out[leave.upperBound...].contains("Walk ended early; progress saved."))
        #expect(out.contains("\u{1B}[?25h"))
        var attributes = termios()
        let tty = try #require(child.terminalFD)
        #expect(tcgetattr(tty, &attributes) == 0)
        #expect(attributes.c_lflag & tcflag_t(ECHO) != 0)
        #expect(attributes.c_lflag & tcflag_t(ICANON) != 0)
        #expect(journal(home).last?["name"] as? String == "tour_abandoned")
    }

    /// A sound device that stops taking audio (here ALSA's `file` device writing into a FIFO whose
    /// reader never reads) makes the walk hang as it closes the device after the first signal;
    /// the second gives the terminal back and exits at once.
    @Test func aSecondSignalEndsAWalkStuckOnItsSoundDeviceAndStillRestoresTheTerminal() async throws {
        let home = try TemporaryDirectory()
        let gpsd = try GPSDHarness()
        let fifo = home.file("stuck.pcm")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let reader = open(fifo.path, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        // Two pages of pipe (F_SETPIPE_SZ, which Glibc does not export): full a fraction of a second
        // into the narration instead of 1.5 s.
        #expect(fcntl(reader, 1031, 8192) >= 8192)
        let child = try walk(["--audio-device", "file:'\(fifo.path)',raw"], home: home, gpsd: gpsd, pty: true)
        #expect(await child.waitForOutput("Next 1. ", timeout: 10))
        _ = await feed(gpsd, 0..<DemoTrace.afterPoint1) { child.output.contains("Now  1. Piazza del Duomo") }
        #expect(await child.waitForOutput("Now  1. Piazza del Duomo", timeout: 10))
        // 13 s of narration at 44 kB/s: the pipe fills, then the device is stuck.
        let capacity = fcntl(reader, 1032)  // F_GETPIPE_SZ, which Glibc does not export
        var queued: Int32 = 0
        let filling = ContinuousClock.now + .seconds(10)
        // Full: less room left than a page, which is what a blocked writer leaves.
        while ContinuousClock.now < filling, ioctl(reader, UInt(FIONREAD), &queued) == 0, queued <= capacity - 4096 {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(queued > capacity - 4096, "the pipe holds \(queued) of \(capacity) bytes")
        child.signal(SIGTERM)
        #expect(await child.wait(timeout: 1.5) == nil, "stuck closing the device")
        #expect(journal(home).last?["name"] as? String == "tour_abandoned")  // recorded before it got stuck
        child.signal(SIGINT)
        #expect(await child.wait(timeout: 5) == 128 + SIGINT)
        #expect(child.output.contains("\u{1B}[?1049l") && child.output.contains("\u{1B}[?25h"))
        #expect(child.output.contains("walkscape: stopped at once; progress is as it was last saved"))
        var attributes = termios()
        let tty = try #require(child.terminalFD)
        #expect(tcgetattr(tty, &attributes) == 0)
        #expect(attributes.c_lflag & tcflag_t(ECHO) != 0)
        #expect(attributes.c_lflag & tcflag_t(ICANON) != 0)
    }

    @Test func noAudioWalkShowsElapsedTimeAndSubtitlesOnTheStatusScreen() async throws {
        let home = try TemporaryDirectory()
        let gpsd = try GPSDHarness()
        let child = try walk(["--no-audio"], home: home, gpsd: gpsd, pty: true, tour: try Self.earlyCues(in: home))
        #expect(await child.waitForOutput("Next 1. ", timeout: 10))
        _ = await feed(gpsd, 0..<DemoTrace.afterPoint1) { child.output.contains("Now  1. Piazza del Duomo") }
        #expect(await child.waitForOutput("Now  1. Piazza del Duomo", timeout: 10))
        // 13.4 s of narration in silence: the clock runs and the first cue shows.
        #expect(await child.waitForOutput("Now  1. Piazza del Duomo  0:01 / 0:13", timeout: 10))
        #expect(child.output.contains("Welcome to the heart of Florence."))
        #expect(await child.waitForOutput("In front of you rises Giotto's bell tower", timeout: 10))
        child.signal(SIGTERM)
        #expect(await child.wait(timeout: 10) == 128 + SIGTERM)
    }

    @Test func plainLogPrintsEachSubtitleCueOnceAsItIsHeard() async throws {
        let home = try TemporaryDirectory()
        let gpsd = try GPSDHarness()
        let child = try walk(["--no-input", "--no-audio"], home: home, gpsd: gpsd, tour: try Self.earlyCues(in: home))
        #expect(await child.waitForOutput("gps: waiting for a fix", timeout: 10))
        _ = await feed(gpsd, 0..<DemoTrace.afterPoint1) { child.output.contains("playing: 1. ") }
        #expect(await child.waitForOutput("playing: 1. ", timeout: 10))
        #expect(await child.waitForOutput("subtitle: In front of you rises Giotto's bell tower", timeout: 10))
        child.signal(SIGTERM)
        #expect(await child.wait(timeout: 10) == 128 + SIGTERM)
        let lines = child.output.split(separator: "\n")
        let cues = lines.filter { $0.hasPrefix("subtitle: ") }
        #expect(cues.first == "subtitle: Welcome to the heart of Florence.")
        #expect(Set(cues).count == cues.count, "each cue once: \(cues)")
        let playing = try #require(lines.firstIndex { $0.hasPrefix("playing: 1. ") })
        #expect(lines.firstIndex { $0.hasPrefix("subtitle: ") }.map { $0 > playing } == true)
    }

    @Test func keysPauseSkipAndQuit() async throws {
        let home = try TemporaryDirectory()
        let gpsd = try GPSDHarness()
        let child = try walk(["--no-audio"], home: home, gpsd: gpsd, pty: true)
        #expect(await child.waitForOutput("Next 1. ", timeout: 10))
        _ = await feed(gpsd, 0..<DemoTrace.afterPoint1) { child.output.contains("Now  1. Piazza del Duomo") }
        #expect(await child.waitForOutput("Now  1. Piazza del Duomo", timeout: 10))
        #expect(child.output.contains("Now  1. Piazza del Duomo"))

        var mark = child.output.count
        func screenSince() -> Substring { let o = child.output; return o.dropFirst(min(mark, o.count)) }
        func waitScreen(_ text: String) async -> Bool {
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline {
                if screenSince().contains(text) { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return false
        }

        child.send(" ")
        #expect(await waitScreen("[paused]"))
        mark = child.output.count
        child.send(" ")
        #expect(await waitScreen("0/5 heard\u{1B}[K"))  // redrawn without [paused]
        mark = child.output.count
        child.send("n")
        #expect(await waitScreen("1/5 heard"))
        #expect(await waitScreen("Now  silence"))
        mark = child.output.count
        child.send("q")
        #expect(await waitScreen("Quit the walk?"))
        child.send("y")
        #expect(await child.wait(timeout: 10) == 0)
        #expect(child.output.contains("Walk ended early; progress saved."))
        let names = journal(home).compactMap { $0["name"] as? String }
        #expect(names.last == "tour_abandoned")

        // Quitting with `q` keeps the walk: the next one resumes after the skipped point.
        let again = try walk(["--no-input", "--no-audio"], home: home, gpsd: gpsd)
        #expect(await again.waitForOutput("Resuming", timeout: 10))
        #expect(again.output.contains("1 of 5 heard; next is 2. "), "output: \(again.output)")
        again.signal(SIGTERM)
        #expect(await again.wait(timeout: 10) == 128 + SIGTERM)
    }

    /// A shell's job control in a few lines: a session on the pty, the walk in a process group of
    /// its own in the foreground, and on a stop: what the terminal is like, then `fg`.
    static let jobControl = #"""
        import fcntl, os, signal, sys, termios, time
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
        signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        pid = os.fork()
        if pid == 0:
            os.setpgid(0, 0)
            os.tcsetpgrp(0, os.getpgrp())
            signal.signal(signal.SIGTTOU, signal.SIG_DFL)
            os.execv(sys.argv[1], sys.argv[1:])
        try:
            os.setpgid(pid, pid)
        except OSError:
            pass
        try:
            os.tcsetpgrp(0, pid)
        except OSError:
            pass
        stops = 0
        while True:
            _, status = os.waitpid(pid, os.WUNTRACED)
            if os.WIFSTOPPED(status):
                stops += 1
                os.tcsetpgrp(0, os.getpgrp())
                lflag = termios.tcgetattr(0)[3]
                cooked = bool(lflag & termios.ICANON) and bool(lflag & termios.ECHO)
                os.write(1, ("\r\nshell: stopped, terminal %s\r\n" % ("cooked" if cooked else "raw")).encode())
                time.sleep(0.3)
                os.tcsetpgrp(0, pid)
                os.kill(pid, signal.SIGCONT)
                continue
            code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)
            os.write(1, ("shell: exited %d after %d stop(s)\r\n" % (code, stops)).encode())
            sys.exit(code)
        """#

    @Test func ctrlZGivesTheTerminalBackBeforeStoppingAndFgTakesItAgainWithTheWalkGoingOn() async throws {
        let home = try TemporaryDirectory()
        let gpsd = try GPSDHarness()
        try home.write("shell.py", Self.jobControl)
        let child = try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [
                home.file("shell.py").path, TestPaths.walkscape.path, "walk", Self.demo.path,
                "--no-audio", "--gpsd-port", "\(gpsd.port)", "--home", home.path,
            ],
            environment: ["NO_COLOR": "1", "TERM": "xterm"], pty: true)
        #expect(await child.waitForOutput("Next 1. ", timeout: 10), "\(child.output.debugDescription)")
        _ = await feed(gpsd, 0..<DemoTrace.afterPoint1) { child.output.contains("Now  1. Piazza del Duomo") }
        #expect(await child.waitForOutput("Now  1. Piazza del Duomo", timeout: 10))

        var mark = child.output.count
        child.send("\u{1A}")  // Ctrl-Z
        #expect(
            await child.waitForOutput("shell: stopped, terminal cooked", timeout: 10),
            "\(child.output.debugDescription)")
        let stopped = child.output.dropFirst(mark)
        // Cursor shown and the main screen back before the stop.
        #expect(stopped.contains("\u{1B}[?25h\u{1B}[?1049l"), "\(stopped.debugDescription)")

        mark = child.output.count
        // After `fg`: the alternate screen again, the status redrawn, and keys work without Enter.
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !child.output.dropFirst(mark).contains("Now  1. Piazza del Duomo") {
            try? await Task.sleep(for: .milliseconds(20))
        }
        let resumed = child.output.dropFirst(mark)
        #expect(resumed.contains("\u{1B}[?1049h"), "\(resumed.debugDescription)")
        #expect(resumed.contains("Now  1. Piazza del Duomo"), "\(resumed.debugDescription)")
        child.send("q")
        #expect(await child.waitForOutput("Quit the walk?", timeout: 10))
        child.send("y")
        #expect(await child.wait(timeout: 15) == 0, "\(child.output.debugDescription)")
        #expect(child.output.contains("shell: exited 0 after 1 stop(s)"), "\(child.output.debugDescription)")
        #expect(child.output.contains("Walk ended early; progress saved."))
    }
}

extension Data {
    /// Little-endian 16-bit samples.
    fileprivate var samples: [Int16] {
        withUnsafeBytes { raw in raw.bindMemory(to: Int16.self).map { Int16(littleEndian: $0) } }
    }
}

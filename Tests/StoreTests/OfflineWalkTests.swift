import Foundation
import TestSupport
import Testing

@testable import Playback

#if canImport(Glibc)
    import Glibc
#endif

/// The product's main path: download at home, walk where there is no signal. A real gpsd on a pty
/// fed the demo trace, the real binary narrating to ALSA's file device, and the API URL pointed
/// at a socket that counts connections.
@Suite(.serialized)
struct OfflineWalkTests {
    @Test func anInstalledTourIsWalkedWithNoNetworkAndItsEventsCarryTheServicesIDs() async throws {
        var served: URL?
        let harness = try await StoreHarness { tours in
            let demo = try StoreHarness.copyDemo(into: tours, shortNarration: true)
            // Point 3's narration is AAC in an MP4 named .mp3, as upstream has: it plays too.
            let narration = demo.appendingPathComponent("media/en/03.mp3")
            let aac = narration.deletingLastPathComponent().appendingPathComponent("03.m4a")
            try FormatFixtures.ffmpeg(["-i", narration.path, "-c:a", "aac", "-b:a", "64k", aac.path])
            try FileManager.default.removeItem(at: narration)
            try FileManager.default.moveItem(at: aac, to: narration)
            served = demo
        }
        try harness.succeed(["download", StoreHarness.demoSlug, "-l", "en"])
        await harness.server.stop()

        let counter = try ConnectionCounter()
        let gpsd = try GPSDHarness()
        let pcm = harness.scratch.file("out.raw")
        let child = try ChildProcess(
            TestPaths.walkscape,
            [
                "walk", StoreHarness.demoSlug, "--no-input", "--audio-device", "file:'\(pcm.path)',raw",
                "--loudness", "off",
                "--gpsd-port", "\(gpsd.port)", "--home", harness.home.path,
            ],
            environment: ["NO_COLOR": "1", "WALKSCAPE_API_URL": counter.url])
        #expect(await child.waitForOutput("gps: waiting for a fix", timeout: 10), "output: \(child.output)")
        _ = await DemoTrace.feed(gpsd, 0..<DemoTrace.epochs.count) { !child.isRunning }
        let code = await child.wait(timeout: 30)
        #expect(code == 0, "output: \(child.output)")
        #expect(!child.output.contains("does not play"), "\(child.output)")
        #expect(counter.connections == 0, "the walk called the network")

        // Every point was heard from the store's blobs, point 3's AAC among them.
        let journal = harness.recordedEvents()
        let triggered = journal.filter { $0["name"] as? String == "point_triggered" }
        #expect(triggered.compactMap { $0["pointId"] as? String } == StoreHarness.demoPointIDs)
        let walkEvents = journal.filter {
            ["tour_started", "point_triggered", "tour_completed"].contains($0["name"] as? String ?? "")
        }
        #expect(walkEvents.allSatisfy { $0["tourId"] as? String == StoreHarness.demoID })
        #expect(journal.last?["name"] as? String == "tour_completed")
        // Each narration as the reference decoders give it, converted to the output's stereo
        // 44.1 kHz (the narrations are 22.05 kHz mono).
        let written = try Data(contentsOf: pcm)
        var expected = Data()
        for point in 1...5 {
            let file = try #require(served).appendingPathComponent(String(format: "media/en/%02d.mp3", point))
            let decoded =
                point == 3
                ? try FormatFixtures.reference(file, channels: 1) : try FixtureAudio.referenceDecode(file).pcm
            let format = try AudioDecoders.open(file).format
            expected += try SampleConverter.convertAll(
                decoded, from: format, to: PlaybackEngine.outputFormat(first: format))
        }
        #expect(written.count == expected.count)
        let same = written == expected  // not diffed: megabytes
        #expect(same)
    }
}

import Foundation
import TestSupport
import Testing

/// Downloads through the server's fault switches: links that expire mid-file, connections cut
/// mid-body, bursts of 5xx, sizes that do not match their declaration.
@Suite(.serialized)
struct DownloadFaultTests {
    /// Six files of 250 kB at 200 kB/s a connection, four at once: the first four take 1.25 s, so
    /// the last two start after their 1 s links expired (signed from the whole second before, they
    /// live 0 to 1 s), and are renewed whatever the cuts do.
    static let slowTour = TourFixture(slug: "slow-walk", points: 6, audioBytes: 250_000)

    @Test func linksThatExpireMidDownloadAreRenewedAndEachFileGoesOnFromTheByteItReached() async throws {
        let harness = try await StoreHarness(
            options: .init(
                urlTTL: 1, resetRate: 0.3, throttleBytesPerSecond: 200_000,
                faultSeed: 11)
        ) { tours in
            try Self.slowTour.write(in: tours)
        }
        let result = try harness.succeed(["download", "slow-walk", "--json"])
        let lines = StoreHarness.jsonLines(result)
        let renewals = lines.filter { $0["event"] as? String == "linkRenewed" }
        #expect(!renewals.isEmpty, "no link was renewed: \(result.stdout)")
        // Every renewal went on from where its file was, and the server saw ranges asked for.
        let resumed = harness.mediaRequests().filter { $0.contains(" 206 ") }
        let cuts = lines.filter { $0["event"] as? String == "retry" }
        #expect(cuts.isEmpty || !resumed.isEmpty, "a cut file was fetched again from its start")
        let installed = try #require(lines.last)
        #expect(installed["event"] as? String == "installed")
        // Bytes over the wire: each file once, however often it was cut or renewed.
        #expect(installed["bytesReceived"] as? Int == 6 * Self.slowTour.audioBytes)
        for point in 1...6 {
            let sha = try harness.servedHash(Self.slowTour.audioPath(order: point, language: "en"), tour: "slow-walk")
            #expect(harness.blobs()[sha] == Self.slowTour.audioBytes)
        }
        try harness.expectBlobsHashRight()
        try harness.expectVerifyClean()
    }

    /// A narration replaced on the service while the download waits to fetch it: its link, renewed
    /// once expired, leads to a file of another size, and the download plans again. The part file
    /// begun for the old file stayed in partial/ for good (no later plan names it), and the files
    /// the first attempt had half fetched were said to be "already here from the last run".
    @Test func aFileReplacedBeforeItsLinkIsRenewedLeavesNoPartFileBehind() async throws {
        // Six files of 500 kB at 200 kB/s, four at once: the last two wait 2.5 s for their turn.
        let tour = TourFixture(slug: "slow-walk", points: 6, audioBytes: 500_000)
        let harness = try await StoreHarness(options: .init(urlTTL: 1, throttleBytesPerSecond: 200_000)) { tours in
            try tour.write(in: tours)
        }
        let download = try harness.start(["download", "slow-walk"])
        #expect(await download.waitForOutput(" 6 files, ", timeout: 20), "\(download.output)")
        try TourFixture.writeNoise(
            harness.tours.appendingPathComponent("slow-walk/\(tour.audioPath(order: 6, language: "en"))"),
            bytes: 240_000, seed: 99)
        #expect(await download.wait(timeout: 60) == 0, "\(download.output)\(download.errorOutput)")
        #expect(download.errorOutput.contains("starting again from its new version"), "\(download.errorOutput)")
        #expect(!download.output.contains("from the last run"), "\(download.output)")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: harness.partial.path)) ?? []
        #expect(left.isEmpty, "\(left)")
        #expect(harness.blobs().values.sorted() == [240_000] + Array(repeating: 500_000, count: 5))
        try harness.expectVerifyClean()
    }

    /// The server killed mid-download and started again on its port a moment later (a restart,
    /// a link dropping for a moment): the download waits for it and finishes, each file from the
    /// byte it reached. It used to give up half a second after the first refused connection
    /// ("cannot reach the service", exit 69).
    @Test func aServerRestartedMidDownloadIsWaitedForAndTheDownloadFinishes() async throws {
        // 3 s of transfer (four files at once, each at 200 kB/s): the server dies with most of it
        // still to come. At 200 kB a file the whole tour came in a second, and a busy machine's
        // late progress line had the server killed after the last byte.
        let fixture = TourFixture(slug: "restart-walk", points: 4, audioBytes: 600_000)
        let harness = try await StoreHarness(options: .init(throttleBytesPerSecond: 200_000)) { tours in
            try fixture.write(in: tours)
        }
        let port = harness.server.port
        let download = try harness.start(["download", "restart-walk", "--json"])
        // A quarter of the tour or more received (its progress lines, every half second: the first
        // says about half), then the server dies.
        func received() -> Int {
            StoreHarness.jsonLines(download.output).compactMap { $0["received"] as? Int }.max() ?? 0
        }
        let deadline = Date().addingTimeInterval(20)
        while received() < fixture.audioBytes, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(received() >= fixture.audioBytes, "the download did not start: \(download.errorOutput)")
        harness.server.signal(SIGKILL)
        // Down for twice the half second after which the download used to give up.
        try await Task.sleep(for: .milliseconds(1000))
        #expect(download.isRunning, "the download gave up while the server was down: \(download.errorOutput)")
        try await harness.restartServer(.init(extraArguments: ["--port", String(port)]))
        let status = await download.wait(timeout: 60)
        #expect(status == 0, "\(download.errorOutput)")
        let installed = try #require(StoreHarness.jsonLines(download.output).last, "\(download.output)")
        #expect(installed["event"] as? String == "installed", "\(download.output)")
        // Every file once: what was on disk when the server died was not fetched again.
        #expect(installed["bytesReceived"] as? Int == fixture.points * fixture.audioBytes)
        try harness.expectBlobsHashRight()
        try harness.expectVerifyClean()
    }

    /// A media link on a host that the name service says does not exist (a mistyped or retired
    /// media host) fails at once, in words that say so: it was retried like a link down, for about
    /// ten seconds, then called a service that cannot be reached. The service's own host alike.
    @Test func aHostWithNoSuchNameIsSaidAtOnceNotRetried() async throws {
        let fixture = TourFixture(slug: "nowhere-walk", points: 2, audioBytes: 20_000)
        let harness = try await StoreHarness(options: .init(publicURL: "https://media.nohost.invalid")) { tours in
            try fixture.write(in: tours)
        }
        let download = try harness.run(["download", "nowhere-walk"])
        #expect(download.status == 69, "\(download.stderr)")
        #expect(download.stderr.contains("no host is named media.nohost.invalid"), "\(download.stderr)")
        #expect(!download.stderr.contains("trying again"), "\(download.stderr)")
        #expect(try harness.installed().isEmpty)

        let tours = try harness.run(["tours"], apiURL: "https://api.nohost.invalid")
        #expect(tours.status == 69, "\(tours.stderr)")
        #expect(tours.stderr.contains("no host is named api.nohost.invalid"), "\(tours.stderr)")
        #expect(!tours.stderr.contains("trying again"), "\(tours.stderr)")
    }

    /// While nothing arrives the progress goes on saying so (the rate falls to nothing), and once
    /// bytes come again the rate is theirs, not an average over the stall. The progress used to
    /// stop for the whole stall at its last healthy rate, then show a rate of a few kB/s and hours
    /// left.
    @Test func progressDuringAStallSaysNothingArrivesAndTheRateAfterItIsTheNewOne() async throws {
        let fixture = TourFixture(slug: "stalled-walk", points: 2, audioBytes: 450_000)
        let harness = try await StoreHarness(options: .init(throttleBytesPerSecond: 200_000)) { tours in
            try fixture.write(in: tours)
        }
        let download = try harness.start(["download", "stalled-walk", "--json"])
        func progress() -> [(received: Int, rate: Int)] {
            StoreHarness.jsonLines(download.output).compactMap { line in
                guard line["event"] as? String == "progress", let received = line["received"] as? Int,
                    let rate = line["bytesPerSecond"] as? Int
                else { return nil }
                return (received, rate)
            }
        }
        let deadline = Date().addingTimeInterval(20)
        while (progress().last?.received ?? 0) < 200_000, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        harness.server.signal(SIGSTOP)
        // Until the lines have said for a while that nothing arrives (bytes already on their way
        // still come in at first), at most 15 s.
        var during = progress()
        let stalledUntil = Date().addingTimeInterval(15)
        while Date() < stalledUntil {
            during = progress()
            let last = during.last?.received ?? -1
            if during.filter({ $0.received == last }).count >= 4, during.last?.rate == 0 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        harness.server.signal(SIGCONT)
        let status = await download.wait(timeout: 60)
        #expect(status == 0, "\(download.errorOutput)")
        // Lines kept coming while nothing arrived, and the rate fell to nothing.
        let stalledAt = during.last?.received ?? -1
        let whileStalled = during.filter { $0.received == stalledAt }
        #expect(whileStalled.count >= 4, "\(during.suffix(6))")
        #expect(whileStalled.last?.rate == 0, "\(during.suffix(6))")
        // After it, no rate computed over the stall (a few kB/s where 400 kB/s arrive).
        let after = progress().filter { $0.received > stalledAt && $0.rate > 0 }
        #expect(!after.isEmpty, "no progress line after the stall: \(download.output.suffix(400))")
        #expect(after.allSatisfy { $0.rate >= 100_000 }, "\(after.prefix(4))")
    }

    /// A body that stops mid-file is resumed, and the retry says what happened: the bytes stopped
    /// coming. It said "no answer within 1 s", of an answer that had begun.
    @Test func aBodyThatStopsMidFileIsResumedAndSaidToHaveStopped() async throws {
        let fixture = TourFixture(slug: "paused-walk", points: 2, audioBytes: 250_000)
        let harness = try await StoreHarness(options: .init(throttleBytesPerSecond: 200_000)) { tours in
            try fixture.write(in: tours)
        }
        let download = try harness.start(["download", "paused-walk", "--json", "--timeout", "1"])
        _ = await download.waitForOutput("\"progress\"", timeout: 20)
        harness.server.signal(SIGSTOP)
        // Stopped for 1.6 times the --timeout: long enough for the stall to be seen.
        try await Task.sleep(for: .milliseconds(1600))
        harness.server.signal(SIGCONT)
        let status = await download.wait(timeout: 60)
        #expect(status == 0, "\(download.errorOutput)")
        let reasons = StoreHarness.jsonLines(download.output).compactMap { $0["reason"] as? String }
        #expect(reasons.contains { $0.hasPrefix("nothing arrived for 1 s at byte ") }, "\(reasons)")
        #expect(!reasons.contains { $0.contains("no answer within") && $0.contains("at byte") }, "\(reasons)")
    }

    @Test func cutConnectionsAndBurstsOfServerErrorsStillEndInACompleteCheckedTour() async throws {
        let fixture = TourFixture(
            slug: "stormy-walk", languages: ["en", "it"], points: 4, audioBytes: 150_000,
            subtitles: true, images: true)
        let harness = try await StoreHarness(options: .init(faultRate: 0.2, resetRate: 0.2, faultSeed: 5)) { tours in
            try fixture.write(in: tours)
        }
        let result = try harness.run(["download", "stormy-walk", "-l", "en", "-l", "it", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let installed = StoreHarness.jsonLines(result).last
        #expect(installed?["event"] as? String == "installed")
        #expect((installed?["retries"] as? Int ?? 0) > 0 || result.stderr.contains("trying again"), "no fault was met")
        try harness.expectBlobsHashRight()
        try harness.expectVerifyClean()
        #expect(try harness.installed().first?["languages"] as? [String] == ["en", "it"])
    }

    @Test func aSizeOtherThanTheDeclaredOneIsTriedOnceMoreThenNamedAndTheInstalledVersionStays() async throws {
        let fixture = TourFixture(slug: "honest-walk", points: 2, audioBytes: 5000)
        let harness = try await StoreHarness { tours in try fixture.write(in: tours) }
        try harness.succeed(["download", "honest-walk"])
        let before = try harness.installed()
        let blobsBefore = harness.blobs()

        try await harness.restartServer(.init(misdeclareSize: true))
        let result = try harness.run(["update", "honest-walk"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("narration of point"), "\(result.stderr)")
        #expect(result.stderr.contains("the service declares") && result.stderr.contains("bytes but sends"))
        // The file named was asked for twice (once more after the mismatch), not forever.
        let named = try #require(["01.mp3", "02.mp3"].first { result.stderr.contains("(\($0))") })
        #expect(harness.mediaRequests(endingWith: "/en/\(named)").count == 2)

        // Nothing changed for the walker.
        #expect(
            try harness.installed().map { $0["versions"] as? [String: String] }
                == before.map { $0["versions"] as? [String: String] })
        #expect(harness.blobs() == blobsBefore)
        try harness.expectVerifyClean()
        try harness.succeed(["preview", "honest-walk", "--trace", DownloadTests.demoTrace, "--fast"])
    }
}

import Foundation
import TestSupport
import Testing

/// `walkscape download` against the real walkscape-server, and everything that must then work with
/// no network at all.
@Suite(.serialized)
struct DownloadTests {
    static var demoTrace: String { TestPaths.demoTour.appendingPathComponent("traces/walk.nmea").path }

    @Test func aDownloadedTourPreviewsMapsLintsAndListsWithNoNetworkCallAtAll() async throws {
        let harness = try await StoreHarness { tours in _ = try StoreHarness.copyDemo(into: tours) }
        let download = try harness.succeed(["download", StoreHarness.demoSlug, "-l", "en", "-l", "it", "--json"])
        let lines = StoreHarness.jsonLines(download)
        #expect(lines.first?["event"] as? String == "plan")
        #expect(lines.last?["event"] as? String == "installed")
        #expect(lines.last?["languages"] as? [String] == ["en", "it"])
        try harness.expectBlobsHashRight()
        try harness.expectVerifyClean()
        // Every served narration is in the store, by its hash.
        for language in ["en", "it"] {
            for point in 1...5 {
                let sha = try harness.servedHash(String(format: "media/%@/%02d.mp3", language, point), tour: "demo")
                #expect(harness.blobs()[sha] != nil, "\(language) point \(point) missing")
            }
        }

        // The service is gone; the API URL now leads to a socket that only counts who calls.
        let counter = try ConnectionCounter()
        let offline: [[String]] = [
            ["tours", "--installed"],
            ["preview", StoreHarness.demoSlug, "--trace", Self.demoTrace, "--fast", "--json"],
            ["preview", StoreHarness.demoID, "--trace", Self.demoTrace, "--fast", "-l", "it"],
            ["preview", "Florence: from", "--trace", Self.demoTrace, "--fast"],
            ["map", StoreHarness.demoSlug, "--trace", Self.demoTrace, "-o", harness.scratch.file("map.svg").path],
            ["lint", StoreHarness.demoSlug],
        ]
        for arguments in offline {
            let result = try harness.run(arguments, apiURL: counter.url)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            if arguments.contains("--json"), arguments[0] == "preview" {
                let report = try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any]
                let summary = report?["summary"] as? [String: Any]
                #expect(summary?["pointsHeard"] as? Int == 5)
            }
        }
        #expect(counter.connections == 0, "an offline command called the network")
        // The counter does see a command that needs the service (a login: one POST, not retried
        // once sent, where `tours` tried four times with waits between).
        let login = try runWalkscape(
            ["login", "--email", "ada@example.org", "--password-stdin"], home: harness.home,
            environment: ["WALKSCAPE_API_URL": counter.url], stdin: Data("correct horse\n".utf8), timeout: 120)
        #expect(login.status != 0)
        #expect(counter.connections >= 1)
        let listing = try harness.run(["tours", "--installed"], apiURL: counter.url).stdout
        #expect(listing.contains(StoreHarness.demoSlug) && listing.contains("en,it"))

        // The service has the download's events, with its ids.
        let events = harness.recordedEvents().filter { ($0["name"] as? String)?.hasPrefix("tour_download") == true }
        #expect(
            events.map { $0["name"] as? String } == [
                "tour_download_started", "tour_download_started",
                "tour_download_completed", "tour_download_completed",
            ])
        #expect(events.allSatisfy { $0["tourId"] as? String == StoreHarness.demoID })
        #expect(Set(events.compactMap { $0["language"] as? String }) == ["en", "it"])

        // A second download of what is installed fetches nothing.
        let again = try harness.succeed(["download", StoreHarness.demoSlug, "-l", "en"])
        #expect(again.stdout.contains("up to date"))
    }

    /// A curator replaces a narration after the service last read its folders: the manifest still
    /// declares the old size when the new file is served. The download plans again from the new
    /// version; it ended in "the service declares N bytes but sends M" (exit 65).
    @Test func aNarrationReplacedOnTheServiceDuringTheDownloadIsFetchedInItsNewVersion() async throws {
        let fixture = TourFixture(slug: "republished", points: 2, audioBytes: 4000)
        let harness = try await StoreHarness(options: .init(reloadInterval: 3600)) { tours in
            try fixture.write(in: tours)
        }
        try TourFixture.writeNoise(
            harness.tours.appendingPathComponent("republished/\(fixture.audioPath(order: 1, language: "en"))"),
            bytes: 5000, seed: 7)
        let result = try harness.run(["download", "republished"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains("changed on the service during the download; starting again from its new version"),
            "\(result.stderr)")
        #expect(harness.blobs().values.sorted() == [4000, 5000])
        try harness.expectVerifyClean()
        // One download, recorded once (it was started twice and completed once); nothing of the
        // replaced file is left to resume, and what the first attempt fetched is not said to be
        // from an earlier run.
        let events = harness.recordedEvents().compactMap { $0["name"] as? String }.filter {
            $0.hasPrefix("tour_download")
        }
        #expect(events == ["tour_download_started", "tour_download_completed"], "\(events)")
        let partial = harness.home.file("data/partial")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: partial.path)) ?? []
        #expect(left.isEmpty, "\(left)")
        #expect(!result.stdout.contains("from the last run"), "\(result.stdout)")

        // With --json the notice is a line of its own between the two plans.
        try TourFixture.writeNoise(
            harness.tours.appendingPathComponent("republished/\(fixture.audioPath(order: 2, language: "en"))"),
            bytes: 4500, seed: 8)
        let json = try runWalkscape(
            ["download", "republished", "--json"], home: try TemporaryDirectory(),
            environment: ["WALKSCAPE_API_URL": harness.server.baseURL])
        #expect(json.status == 0, "\(json.stderr)")
        let said = StoreHarness.jsonLines(json).compactMap { $0["event"] as? String }
        let warning = try #require(said.firstIndex(of: "warning"), "\(json.stdout)")
        #expect(said.prefix(warning).contains("plan") && said.suffix(from: warning).contains("plan"), "\(said)")
        #expect(
            StoreHarness.jsonLines(json).first { $0["event"] as? String == "warning" }?["message"]
                .flatMap { $0 as? String }?.contains("starting again from its new version") == true, "\(json.stdout)")
        #expect(said.last == "installed", "\(said)")
    }

    @Test func twoLanguagesSharingAnImageStoreAndFetchItOnceAndIdenticalNarrationIsStoredOnce() async throws {
        let fixture = TourFixture(
            slug: "shared-image", languages: ["en", "it"], points: 3, audioBytes: 3000, images: true)
        let harness = try await StoreHarness { tours in try fixture.write(in: tours) }
        try harness.succeed(["download", "shared-image", "-l", "en", "-l", "it"])
        // The image of each point is one URL for both languages: fetched once.
        for point in 1...3 {
            #expect(harness.mediaRequests(endingWith: "/media/p\(point).jpg").count == 1)
        }
        // The fixture's narration is the same bytes in both languages under two URLs: fetched
        // twice (nothing tells them apart before), stored once (their hash does after).
        #expect(harness.mediaRequests(endingWith: "/en/01.mp3").count == 1)
        #expect(harness.mediaRequests(endingWith: "/it/01.mp3").count == 1)
        #expect(harness.blobs().count == 6, "blobs: \(harness.blobs())")
        try harness.expectBlobsHashRight()

        // Removing one language keeps what the other still uses.
        let removed = try harness.succeed(["remove", "shared-image", "-l", "it"])
        #expect(removed.stdout.contains("Still installed in en"))
        #expect(harness.blobs().count == 6)
        try harness.expectVerifyClean()
        #expect(
            harness.recordedEvents().contains {
                $0["name"] as? String == "tour_download_deleted" && $0["language"] as? String == "it"
            })
        try harness.succeed(["remove", "shared-image"])
        #expect(harness.blobs().isEmpty)
        #expect(try harness.installed().isEmpty)
    }

    @Test func aLockedTourSaysHowToUnlockItAndDownloadsOnceRedeemed() async throws {
        let fixture = TourFixture(slug: "locked-walk", isProtected: true, points: 2, audioBytes: 2000)
        let harness = try await StoreHarness { tours in try fixture.write(in: tours) }
        let anonymous = try harness.run(["download", "locked-walk"])
        #expect(anonymous.status == 77)
        #expect(anonymous.stderr.contains("walkscape login") && anonymous.stderr.contains("walkscape redeem CODE"))
        try harness.server.addUser("ada@example.org", password: "correct horse")
        try harness.server.addVoucher("OPEN-SESAME", tour: fixture.id)
        let login = try runWalkscape(
            ["login", "--email", "ada@example.org", "--password-stdin"], home: harness.home,
            environment: ["WALKSCAPE_API_URL": harness.server.baseURL], stdin: Data("correct horse\n".utf8))
        #expect(login.status == 0, "\(login.stderr)")
        let locked = try harness.run(["download", "locked-walk"])
        #expect(locked.status == 77)
        #expect(locked.stderr.contains("is locked: unlock it with a voucher (walkscape redeem CODE)"))
        try harness.succeed(["redeem", "OPEN-SESAME"])
        try harness.succeed(["download", "locked-walk"])
        try harness.expectVerifyClean()
        // Logged out, the update of what the login unlocked says to log in, not to find a voucher.
        try harness.succeed(["logout"])
        let loggedOut = try harness.run(["update", "locked-walk"])
        #expect(loggedOut.status == 77)
        // The tour named once: it said "locked-walk: locked-walk is protected".
        #expect(
            loggedOut.stderr.hasPrefix(
                "walkscape: locked-walk is protected: log in (walkscape login) with the account that unlocked it, or unlock it with a voucher (walkscape redeem CODE), then try again\n"
            ), "\(loggedOut.stderr)")
    }

    /// Also several narrations FFmpeg decodes, judged side by side with the transfers: each plays
    /// and each is measured (FFmpeg's libraries are opened by the first of them).
    @Test func anAACNarrationNamedMP3IsInstalledAndHeard() async throws {
        func fixture(_ fileExtension: String) throws -> URL {
            try FormatFixtures.file(FormatFixtures.encodings.first { $0.fileExtension == fileExtension }!)
        }
        let replaced = [("03", try fixture("m4a")), ("04", try fixture("ogg")), ("05", try fixture("flac"))]
        let harness = try await StoreHarness { tours in
            let demo = try StoreHarness.copyDemo(into: tours)
            // An AAC file in an MP4 container, named .mp3, as one upstream tour has; then Vorbis
            // and FLAC under .mp3 names too.
            for (number, source) in replaced {
                let target = demo.appendingPathComponent("media/en/\(number).mp3")
                try FileManager.default.removeItem(at: target)
                try FileManager.default.copyItem(at: source, to: target)
            }
        }
        let download = try harness.succeed(["download", StoreHarness.demoSlug, "-l", "en"])
        #expect(!download.stdout.contains("does not play"), "\(download.stdout)")
        #expect(try !harness.run(["tours", "--installed"]).stdout.contains("not play"))
        let listing = try harness.succeed(["tours", "--installed", "--json"])
        let rows = try JSONSerialization.jsonObject(with: listing.stdoutData) as? [[String: Any]]
        let english = (rows?.first?["loudness"] as? [String: Any])?["en"] as? [String: Any]
        #expect(english?["narrations"] as? Int == 5)
        #expect(english?["measured"] as? Int == 5, "\(listing.stdout)")
        let preview = try harness.succeed([
            "preview", StoreHarness.demoSlug, "--trace", Self.demoTrace, "--fast", "--json",
        ])
        let report = try JSONSerialization.jsonObject(with: preview.stdoutData) as? [String: Any]
        let summary = report?["summary"] as? [String: Any]
        #expect(summary?["pointsHeard"] as? Int == 5)
        #expect(summary?["pointsAnnounced"] as? Int == 0)
        #expect(try harness.run(["lint", StoreHarness.demoSlug]).status == 0)
    }

    @Test func narrationThatDoesNotPlayIsInstalledFlaggedAndAnnouncedInsteadOfPlayed() async throws {
        let harness = try await StoreHarness { tours in
            let demo = try StoreHarness.copyDemo(into: tours)
            // An MP4 header over bytes that are no AAC: a damaged upload.
            var aac = Data([0, 0, 0, 0x20]) + Data("ftypM4A ".utf8) + Data(repeating: 0, count: 20)
            aac += Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try aac.write(to: demo.appendingPathComponent("media/en/03.mp3"))
        }
        let download = try harness.succeed(["download", StoreHarness.demoSlug, "-l", "en"])
        #expect(
            download.stdout.contains(
                "point 3 (Piazza della Signoria) in 'en': its narration does not play (looks like MP4/AAC: "),
            "\(download.stdout)")
        #expect(try harness.run(["tours", "--installed"]).stdout.contains("(1 narration that does not play)"))
        let preview = try harness.succeed([
            "preview", StoreHarness.demoSlug, "--trace", Self.demoTrace, "--fast", "--json",
        ])
        let report = try JSONSerialization.jsonObject(with: preview.stdoutData) as? [String: Any]
        let summary = report?["summary"] as? [String: Any]
        #expect(summary?["pointsHeard"] as? Int == 4)
        #expect(summary?["pointsAnnounced"] as? Int == 1)
        // lint names the file as the walker knows it, not by its hash.
        let lint = try harness.run(["lint", StoreHarness.demoSlug])
        #expect(lint.status == 1)
        #expect(
            lint.stdout.contains("03.mp3 (narration of point 3 in 'en')") && lint.stdout.contains("audio-unreadable"))
    }

    @Test func aTourFolderAndAnInstalledTourOfTheSameNameAreAmbiguousUntilSaidWhich() async throws {
        let harness = try await StoreHarness { tours in _ = try StoreHarness.copyDemo(into: tours) }
        try harness.succeed(["download", StoreHarness.demoSlug])
        let cwd = harness.scratch.url.appendingPathComponent("cwd")
        try FileManager.default.createDirectory(at: cwd, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestPaths.demoTour, to: cwd.appendingPathComponent(StoreHarness.demoSlug))
        func preview(_ tour: String) throws -> ProcessResult {
            try run(
                TestPaths.walkscape,
                ["preview", tour, "--trace", Self.demoTrace, "--fast", "--home", harness.home.path],
                environment: ["WALKSCAPE_API_URL": "http://127.0.0.1:1"], currentDirectory: cwd)
        }
        let ambiguous = try preview(StoreHarness.demoSlug)
        #expect(ambiguous.status == 64)
        #expect(ambiguous.stderr.contains("is both a tour folder here and the installed tour"))
        #expect(try preview("./\(StoreHarness.demoSlug)").status == 0)
        #expect(try preview(StoreHarness.demoID).status == 0)
        let unknown = try preview("no-such-walk")
        #expect(unknown.status == 66)
        #expect(unknown.stderr.contains("no tour folder or installed tour named 'no-such-walk'"))
        let italian = try run(
            TestPaths.walkscape, ["walk", StoreHarness.demoID, "-l", "it", "--no-audio", "--home", harness.home.path],
            environment: ["WALKSCAPE_API_URL": "http://127.0.0.1:1"], currentDirectory: cwd, timeout: 20)
        #expect(italian.status == 64)
        #expect(italian.stderr.contains("installed in en only: walkscape download \(StoreHarness.demoSlug) -l it"))
    }
}

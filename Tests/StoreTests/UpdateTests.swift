import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `update`, `verify`, `gc`, and what a full disk does to them.
@Suite(.serialized)
struct UpdateTests {
    @Test func aRepublishedNarrationIsTheOneFileUpdateFetchesAndTheOldOneIsCollected() async throws {
        let fixture = TourFixture(slug: "edited-walk", points: 4, audioBytes: 20_000, subtitles: true, images: true)
        let harness = try await StoreHarness { tours in try fixture.write(in: tours) }
        try harness.succeed(["download", "edited-walk"])
        let requestsBefore = harness.mediaRequests().count
        let blobsBefore = harness.blobs()
        #expect(try harness.succeed(["update"]).stdout.contains("up to date"))
        #expect(harness.mediaRequests().count == requestsBefore)

        let version = try harness.manifestVersion(tourID: fixture.id, language: "en")
        let narration = harness.tours.appendingPathComponent("edited-walk").appendingPathComponent(
            fixture.audioPath(order: 3, language: "en"))
        let oldSHA = try harness.servedHash(fixture.audioPath(order: 3, language: "en"), tour: "edited-walk")
        try TourFixture.writeNoise(narration, bytes: 21_000, seed: 4242)
        #expect(try await harness.waitForRepublish(tourID: fixture.id, language: "en", from: version))

        let update = try harness.succeed(["update", "--json"])
        let installed = try #require(StoreHarness.jsonLines(update).first { $0["event"] as? String == "installed" })
        #expect(installed["files"] as? Int == 1)
        #expect(installed["bytesReceived"] as? Int == 21_000)
        // The server saw exactly one more media request: that narration.
        let after = harness.mediaRequests()
        #expect(after.count == requestsBefore + 1)
        #expect(after.last?.contains("/en/03.mp3") == true)
        let newSHA = try harness.servedHash(fixture.audioPath(order: 3, language: "en"), tour: "edited-walk")
        #expect(harness.blobs()[newSHA] == 21_000)
        #expect(harness.blobs()[oldSHA] == nil, "the replaced narration was not collected")
        #expect(harness.blobs().count == blobsBefore.count)
        try harness.expectVerifyClean()
        #expect(harness.recordedEvents().filter { $0["name"] as? String == "tour_download_completed" }.count == 2)
    }

    /// Tours the service changed in shape since they were installed. `update` failed every time on
    /// a dropped language ("no tour … in language it", exit 66) with the English edit never landing,
    /// kept a renamed tour under its old slug, and named neither a tour taken down nor one
    /// published again under a new id for what it was.
    @Test func toursTheServiceRenamedCutDownOrReplacedAreUpdatedAsFarAsTheyCanBeAndSaySo() async throws {
        let bilingual = TourFixture(slug: "two-tongues", languages: ["en", "it"], points: 2, audioBytes: 3000)
        let goner = TourFixture(slug: "taken-down", points: 1, audioBytes: 2000)
        let reborn = TourFixture(slug: "reborn", points: 1, audioBytes: 2500)
        let harness = try await StoreHarness(fixtures: [bilingual, goner, reborn])
        try harness.succeed(["download", "two-tongues", "-l", "en", "-l", "it"])
        try harness.succeed(["download", "taken-down"])
        try harness.succeed(["download", "reborn"])

        // Italian dropped, English edited, the slug renamed; one tour gone; one published anew.
        var edited = bilingual
        edited.languages = ["en"]
        edited.slug = "two-languages"
        edited.audioBytes = 3500
        try edited.write(in: harness.tours, name: "two-tongues")
        try FileManager.default.removeItem(at: harness.tours.appendingPathComponent("taken-down"))
        var successor = reborn
        successor.id = UUID().uuidString.lowercased()
        try successor.write(in: harness.tours)

        let update = try harness.run(["update"])
        #expect(update.status == 66, "\(update.stderr)")
        #expect(update.stderr.contains("2 tours could not be updated"), "\(update.stderr)")
        #expect(
            update.stderr.contains(
                "two-languages: 'it' is no longer on the service; the installed 'it' stays as it was (walkscape remove two-languages -l it deletes it)"
            ), "\(update.stderr)")
        #expect(
            update.stderr.contains(
                "two-tongues is now called two-languages on the service; it is installed under that name"))
        #expect(
            update.stderr.contains(
                "walkscape: taken-down: no longer published on the service; the installed version stays and still walks (walkscape remove taken-down deletes it)"
            ), "\(update.stderr)")
        #expect(
            update.stderr.contains(
                "walkscape: reborn: the service now publishes reborn as another tour (id \(successor.id)); the installed one stays and still walks, and a walk of it under way goes on (a walk of the new one starts from its first point). To change to it: walkscape remove \(reborn.id), then walkscape download \(successor.id)"
            ), "\(update.stderr)")
        // English was updated, under the new name.
        #expect(harness.blobs().values.contains(3500))
        let listing = try harness.succeed(["tours", "--installed"]).stdout
        #expect(listing.contains("two-languages") && !listing.contains("two-tongues"), "\(listing)")
        try harness.succeed(["remove", "two-languages", "-l", "it"])
        let both = try harness.succeed(["download", successor.id])
        #expect(
            both.stderr.contains(
                "another tour named reborn is installed (id \(reborn.id)), which the service no longer publishes under that name; walkscape remove \(reborn.id) deletes it"
            ), "\(both.stderr)")
        try harness.succeed(["remove", reborn.id])
        try harness.expectVerifyClean()
    }

    @Test func verifyNamesDamagedAndMissingFilesAndRepairFetchesExactlyThose() async throws {
        let fixture = TourFixture(slug: "fragile-walk", points: 3, audioBytes: 30_000)
        // Another tour whose narrations are the same bytes (other links): one blob each, shared.
        let twin = TourFixture(slug: "fragile-twin", points: 3, audioBytes: 30_000)
        let harness = try await StoreHarness(fixtures: [fixture, twin])
        try harness.succeed(["download", "fragile-walk"])
        try harness.succeed(["download", "fragile-twin"])
        let damaged = try harness.servedHash(fixture.audioPath(order: 1, language: "en"), tour: "fragile-walk")
        let missing = try harness.servedHash(fixture.audioPath(order: 2, language: "en"), tour: "fragile-walk")
        let handle = try FileHandle(forWritingTo: harness.media.appendingPathComponent(damaged))
        try handle.seek(toOffset: 1000)
        try handle.write(contentsOf: Data(repeating: 0xAA, count: 16))
        try handle.close()
        try FileManager.default.removeItem(at: harness.media.appendingPathComponent(missing))

        let verify = try harness.run(["verify", "fragile-walk"])
        #expect(verify.status == 65)
        #expect(
            verify.stdout.contains("damaged: \(damaged.prefix(12)): damaged")
                && verify.stdout.contains("narration of point 1"))
        #expect(verify.stdout.contains("\(missing.prefix(12)): missing"))
        #expect(verify.stderr.contains("walkscape verify --repair"))

        // Offline, nothing can be fetched: the damaged file still plays (a few bytes of bit rot),
        // and stays until its replacement is in. It was deleted first, and the point went silent.
        let offline = try harness.run(["verify", "--repair"], apiURL: "http://127.0.0.1:1")
        #expect(offline.status == 69, "\(offline.stdout)\(offline.stderr)")
        #expect(harness.blobs()[damaged] == fixture.audioBytes, "the damaged narration went before a new one came")

        let requestsBefore = harness.mediaRequests().count
        let repair = try harness.run(["verify", "--repair"])
        #expect(repair.status == 0, "\(repair.stdout)\(repair.stderr)")
        #expect(harness.mediaRequests().count == requestsBefore + 2)
        try harness.expectVerifyClean()
        try harness.expectBlobsHashRight()

        // gc: files nothing uses and interrupted downloads go; installed ones stay.
        try Data(repeating: 1, count: 10).write(to: harness.partial.appendingPathComponent("0123.part"))
        let stray = String(repeating: "ab", count: 32)
        try Data(repeating: 2, count: 10).write(to: harness.media.appendingPathComponent(stray))
        let gc = try harness.succeed(["gc", "--json"])
        let report = try JSONSerialization.jsonObject(with: gc.stdoutData) as? [String: Any]
        #expect(report?["blobsRemoved"] as? Int == 1)
        #expect(report?["partialDownloadsRemoved"] as? Int == 1)
        #expect(harness.blobs().count == 3)
        try harness.expectVerifyClean()
    }

    @Test func aFullDiskFailsWithAClearErrorAndTheInstalledVersionStaysPlayable() async throws {
        let fixture = TourFixture(slug: "roomy-walk", points: 2, audioBytes: 100_000)
        let harness = try await StoreHarness { tours in try fixture.write(in: tours) }
        try harness.succeed(["download", "roomy-walk"])
        let before = harness.blobs()

        // The curator republishes a larger narration.
        try await Self.republish(harness, fixture, point: 2, bytes: 1_500_000)

        // A write that fails part-way (a file size limit here, as a quota would, or a disk that
        // another writer fills): the download stops in the system's words and keeps the old version.
        let limited = try run(
            URL(fileURLWithPath: "/usr/bin/prlimit"),
            ["--fsize=400000", TestPaths.walkscape.path, "update", "--home", harness.home.path],
            environment: ["WALKSCAPE_API_URL": harness.server.baseURL, "NO_COLOR": "1"], timeout: 60)
        #expect(limited.status == 1)
        #expect(limited.stderr.contains("File too large"), "\(limited.stderr)")
        #expect(limited.stderr.contains("free some space and run the command again"))
        try Self.expectOldVersionPlayable(harness, blobs: before)

        // A disk too small for the new version is seen before anything is fetched: a small file
        // system of its own for the store, when this machine lets the test mount one.
        let other = try TemporaryDirectory(prefix: "walkscape-store-tmpfs")
        let data = other.file("data")
        guard Mounts.available else { return }
        try Mounts.tmpfs(at: data, size: "4m")
        defer { Mounts.unmount(data, lazily: true) }
        let first = try runWalkscape(
            ["download", "roomy-walk"], home: other, environment: ["WALKSCAPE_API_URL": harness.server.baseURL])
        #expect(first.status == 0, "\(first.stderr)")
        let installed = try FileManager.default.contentsOfDirectory(atPath: data.appendingPathComponent("media").path)
        try await Self.republish(harness, fixture, point: 1, bytes: 3_000_000)
        func starts() -> Int {
            (harness.recordedEvents() + KeptEvents.read(other)).filter {
                $0["name"] as? String == "tour_download_started"
            }.count
        }
        let startsBefore = starts()
        let full = try runWalkscape(["update"], home: other, environment: ["WALKSCAPE_API_URL": harness.server.baseURL])
        #expect(full.status == 1)
        #expect(
            // The tour named once (it was "roomy-walk: not enough free space for roomy-walk in").
            full.stderr.contains("walkscape: roomy-walk: not enough free space in \(data.path): the download needs"),
            "\(full.stderr)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: data.appendingPathComponent("media").path).sorted()
                == installed.sorted())
        // Refused before it began: no download started (each such try sent one that never ended).
        #expect(starts() == startsBefore)
        let verify = try runWalkscape(["verify"], home: other)
        #expect(verify.status == 0, "\(verify.stdout)")
        let preview = try runWalkscape(
            ["preview", "roomy-walk", "--trace", DownloadTests.demoTrace, "--fast"], home: other,
            environment: ["WALKSCAPE_API_URL": "http://127.0.0.1:1"])
        #expect(preview.status == 0, "\(preview.stderr)")
    }

    static func republish(_ harness: StoreHarness, _ fixture: TourFixture, point: Int, bytes: Int) async throws {
        let version = try harness.manifestVersion(tourID: fixture.id, language: "en")
        let narration = harness.tours.appendingPathComponent(fixture.slug).appendingPathComponent(
            fixture.audioPath(order: point, language: "en"))
        try TourFixture.writeNoise(narration, bytes: bytes, seed: UInt64(bytes))
        #expect(try await harness.waitForRepublish(tourID: fixture.id, language: "en", from: version))
    }

    static func expectOldVersionPlayable(
        _ harness: StoreHarness, blobs: [String: Int],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for (name, size) in blobs {
            #expect(
                harness.blobs()[name] == size, "a file of the installed version went", sourceLocation: sourceLocation)
        }
        try harness.expectVerifyClean(sourceLocation: sourceLocation)
        let preview = try harness.run(
            ["preview", "roomy-walk", "--trace", DownloadTests.demoTrace, "--fast"], apiURL: "http://127.0.0.1:1")
        #expect(preview.status == 0, "\(preview.stderr)", sourceLocation: sourceLocation)
    }
}

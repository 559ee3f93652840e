import Foundation
import NIOHTTP1
import TestSupport
import Testing
import TourModel

#if canImport(Glibc)
    import Glibc
#endif

/// `/tours`, `/tours/:id`, points and manifest, built from tour folders and kept in step with them.
struct TourTests {
    static let demoID = "3b6f7a0e-2c55-4c1e-8f4a-7d2f5e0c9a10"

    @Test func theListCarriesEveryLanguageAndHasAccessOnlyWhenAuthenticated() async throws {
        try await InProcessServer.test { http in
            let anonymous = try await http.get("/tours")
            #expect(anonymous.status == 200)
            let tours: [TourSummary] = try anonymous.decode()
            let demo = try #require(tours.first)
            #expect(tours.count == 1 && demo.id == Self.demoID && demo.slug == "florence-duomo-pitti")
            #expect(demo.languages == ["en", "it"] && demo.title["it"] == "Firenze: dal Duomo a Palazzo Pitti")
            #expect(
                demo.city == "Florence" && demo.durationMinutes == 20 && demo.distanceKm == 1.18
                    && demo.difficulty == "easy")
            #expect(demo.route.count == 16 && demo.completionMessage["it"] != nil && demo.busInfo["it"] == nil)
            #expect(demo.hasAccess == nil && anonymous.json.arrayValue?.first?["hasAccess"] == nil)
            let head = try await http.send(.HEAD, "/tours")
            #expect(
                head.status == 200 && head.body.isEmpty && head.header("content-length") == String(anonymous.body.count)
            )
            let session = try await http.register("ada@example.org")
            let mine: [TourSummary] = try await http.get("/tours", token: session.tokens.accessToken).decode()
            // A free tour is open to all, and nobody holds a grant for it: false, as live.
            #expect(mine.first?.hasAccess == false)
        }
    }

    @Test func detailNeedsAPublishedLanguage() async throws {
        try await InProcessServer.test { http in
            let detail = try await http.get("/tours/\(Self.demoID)?language=it")
            #expect(detail.status == 200)
            let tour: TourDetail = try detail.decode()
            #expect(tour.title == "Firenze: dal Duomo a Palazzo Pitti" && tour.description.hasPrefix("Cinque tappe"))
            #expect(tour.hasAccess == false && tour.languages == ["en", "it"] && tour.busInfo == nil)
            #expect(tour.startingPoint == Coordinate(latitude: 43.77262, longitude: 11.25545))
            #expect(detail.json["downloadInfo"] != nil && detail.json["hasAccess"] == false)
            for path in [
                "/tours/\(Self.demoID)", "/tours/\(Self.demoID)?language=fr", "/tours/nope?language=en",
                "/tours/nope/points?language=en", "/tours/\(Self.demoID)/manifest",
            ] {
                let reply = try await http.get(path)
                #expect(reply.status == 404, "\(path)")
                #expect(reply.error?.error == "Not Found" && reply.error?.statusCode == 404, "\(path)")
            }
            let unknownRoute = try await http.send(.DELETE, "/tours")
            #expect(unknownRoute.status == 404 && unknownRoute.error?.messages == ["Cannot DELETE /tours"])
        }
    }

    @Test func pointsAreTheFoldersInOrderInTheLiveShape() async throws {
        try await InProcessServer.test { http in
            let reply = try await http.get("/tours/\(Self.demoID)/points?language=it")
            let points: [TourPoint] = try reply.decode()
            let folder = try TourFolder.load(from: TestPaths.demoTour).playable(language: "it")
            #expect(points.map(\.id) == folder.points.map(\.id))
            #expect(points.map(\.order) == [1, 2, 3, 4, 5])
            #expect(points.map(\.title) == folder.points.map(\.title))
            #expect(points.map(\.coordinate) == folder.points.map(\.coordinate))
            #expect(points.map(\.triggerRadiusMeters) == folder.points.map(\.triggerRadiusMeters))
            #expect(points.allSatisfy { $0.audioURL == nil })
        }
    }

    @Test func theManifestListsEachFileWithItsSizeOnDiskAndAVersion() async throws {
        try await InProcessServer.test { http in
            let reply = try await http.get("/tours/\(Self.demoID)/manifest?language=en")
            #expect(reply.json["version"] == 1)
            let manifest: TourManifest = try reply.decode()
            #expect(manifest.tourID == Self.demoID && manifest.language == "en")
            #expect(
                manifest.audio.map(\.order) == [1, 2, 3, 4, 5] && manifest.subtitles.count == 5
                    && manifest.images.isEmpty)
            for (i, file) in manifest.audio.enumerated() {
                let disk = TestPaths.demoTour.appendingPathComponent("media/en/0\(i + 1).mp3")
                let size = try FileManager.default.attributesOfItem(atPath: disk.path)[.size] as? NSNumber
                #expect(file.sizeBytes == size?.int64Value)
                #expect(file.expiresAt.map { abs($0.timeIntervalSinceNow - 86400) < 60 } == true)
            }
            #expect(manifest.subtitles.allSatisfy { $0.language == "en" })
            let map = try #require(manifest.offlineMap)
            #expect(map.tilesURLTemplate?.contains(".invalid/") == true && map.recommendedZoomLevels == [14, 15, 16])
            #expect(try #require(map.bounds).north > 43.773)
        }
    }

    @Test func aProtectedTourIsListedButItsContentNeedsAGrant() async throws {
        let dir = try TemporaryDirectory()
        let open = TourFixture(slug: "open")
        let secret = TourFixture(slug: "secret", isProtected: true)
        try open.write(in: dir.url)
        try secret.write(in: dir.url)
        let server = try await ServerProcess.start(.init(tours: [dir.url]))
        let http = HTTPTestClient(server)
        let list: [TourSummary] = try await http.get("/tours").decode()
        #expect(Set(list.map(\.slug)) == ["open", "secret"])
        #expect(try await http.get("/tours/\(secret.id)?language=en").decode(TourDetail.self).hasAccess == false)
        for path in ["points", "manifest"] {
            let reply = try await http.get("/tours/\(secret.id)/\(path)?language=en")
            #expect(reply.status == 403)
            #expect(
                reply.error
                    == APIErrorBody(
                        statusCode: 403, messages: ["Access denied. Redeem a voucher to access this tour."],
                        error: "Forbidden", messageIsList: false))
        }
        let session = try await http.register("ada@example.org")
        let token = session.tokens.accessToken
        #expect(try await http.get("/tours/\(secret.id)/manifest?language=en", token: token).status == 403)
        let listed: [TourSummary] = try await http.get("/tours", token: token).decode()
        #expect(
            listed.first { $0.slug == "secret" }?.hasAccess == false
                && listed.first { $0.slug == "open" }?.hasAccess == false)
        #expect(try await http.get("/tours/\(open.id)/manifest?language=en", token: token).status == 200)
        try server.addVoucher("LETMEIN", tour: secret.id)
        #expect(try await http.post("/vouchers/validate", ["code": "LETMEIN"], token: token).status == 201)
        #expect(try await http.get("/tours/\(secret.id)/manifest?language=en", token: token).status == 200)
        #expect(
            try await http.get("/tours/\(secret.id)?language=en", token: token).decode(TourDetail.self).hasAccess
                == true)
        let unlocked = try await http.get("/tours", token: token).decode([TourSummary].self)
        #expect(
            unlocked.first { $0.slug == "secret" }?.hasAccess == true
                && unlocked.first { $0.slug == "open" }?.hasAccess == false)
        await server.stop()
    }

    /// The first request past the reload interval re-reads the folders; requests that came while it
    /// did got the tours from before the edit, so a client asking a tour's details, points and
    /// manifest at once got a mix. They wait for the re-reading now.
    @Test func requestsThatComeWhileTheFoldersAreReReadGetTheToursAfterTheEdit() async throws {
        let dir = try TemporaryDirectory()
        // Enough tours that re-reading them all takes a while (a version recorded for each).
        let fixtures = (0..<150).map { TourFixture(slug: "tour-\($0)", points: 1, audioBytes: 0) }
        let roots = try fixtures.map { try $0.write(in: dir.url) }
        try await InProcessServer.test(.init(tours: [dir.url], reloadInterval: 0.2)) { http in
            let id = fixtures[0].id
            #expect(try await http.get("/tours/\(id)/points?language=en").status == 200)
            for root in roots {
                let file = root.appendingPathComponent("tour.json")
                try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: "Point 1 (en)", with: "Edited")
                    .write(to: file, atomically: true, encoding: .utf8)
            }
            try await Task.sleep(for: .milliseconds(300))
            let titles = try await withThrowingTaskGroup(of: String?.self) { group in
                for i in 0..<6 {
                    group.addTask {
                        // The first re-reads; the others come while it does.
                        if i > 0 { try await Task.sleep(for: .milliseconds(2 * i)) }
                        let points: [TourPoint] = try await http.get("/tours/\(id)/points?language=en").decode()
                        return points.first?.title
                    }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(titles == Array(repeating: "Edited", count: 6))
        }
    }

    /// An edit shows up without a restart, with a new version; a broken edit keeps the last good version
    /// served and is logged; fixing it serves the fix; new folders appear, removed ones go.
    @Test func editsAreServedWithoutARestartAndABrokenEditKeepsTheLastGoodVersion() async throws {
        let dir = try TemporaryDirectory()
        let fixture = TourFixture(slug: "edited", languages: ["en", "it"])
        let root = try fixture.write(in: dir.url)
        let server = try await ServerProcess.start(.init(tours: [dir.url], reloadInterval: 0))
        let http = HTTPTestClient(server)
        #expect(try await http.manifest(fixture.id).version == "1")
        #expect(try await http.manifest(fixture.id, language: "it").version == "1")

        let manifestURL = root.appendingPathComponent("tour.json")
        let original = try String(contentsOf: manifestURL, encoding: .utf8)
        try original.replacingOccurrences(of: "Point 1 (en)", with: "Piazza Maggiore").write(
            to: manifestURL, atomically: true, encoding: .utf8)
        let points: [TourPoint] = try await http.get("/tours/\(fixture.id)/points?language=en").decode()
        #expect(points.first?.title == "Piazza Maggiore")
        #expect(try await http.manifest(fixture.id).version == "2")
        #expect(try await http.manifest(fixture.id, language: "it").version == "1")  // Italian did not change

        // A replaced media file (new size) is a new version too.
        try TourFixture.writeNoise(
            root.appendingPathComponent(fixture.audioPath(order: 2, language: "it")), bytes: 5000, seed: 9)
        let italian = try await http.manifest(fixture.id, language: "it")
        #expect(italian.version == "2" && italian.audio[1].sizeBytes == 5000)

        try "{ this is not json".write(to: manifestURL, atomically: true, encoding: .utf8)
        let still: [TourPoint] = try await http.get("/tours/\(fixture.id)/points?language=en").decode()
        #expect(still.first?.title == "Piazza Maggiore")
        #expect(try await waitFor { server.log.contains("still serving the last good version") })
        #expect(server.log.contains("not valid JSON"))

        try original.replacingOccurrences(of: "Point 1 (en)", with: "Piazza Nettuno").write(
            to: manifestURL, atomically: true, encoding: .utf8)
        #expect(
            try await http.get("/tours/\(fixture.id)/points?language=en").decode([TourPoint].self).first?.title
                == "Piazza Nettuno")

        let added = TourFixture(slug: "added")
        try added.write(in: dir.url)
        #expect(try await http.get("/tours").decode([TourSummary].self).count == 2)
        try FileManager.default.removeItem(at: root)
        #expect(try await http.get("/tours").decode([TourSummary].self).map(\.slug) == ["added"])
        #expect(try await http.get("/tours/\(fixture.id)?language=en").status == 404)
        await server.stop()
    }

    @Test func versionsSurviveARestartWhenNothingChanged() async throws {
        let dir = try TemporaryDirectory(), data = try TemporaryDirectory()
        let fixture = TourFixture()
        let root = try fixture.write(in: dir.url)
        var server = try await ServerProcess.start(.init(tours: [root]), data: data.url)
        #expect(try await HTTPTestClient(server).manifest(fixture.id).version == "1")
        await server.stop()
        server = try await ServerProcess.start(.init(tours: [root]), data: data.url)
        #expect(try await HTTPTestClient(server).manifest(fixture.id).version == "1")
        await server.stop()
        try TourFixture.writeNoise(
            root.appendingPathComponent(fixture.audioPath(order: 1, language: "en")), bytes: 100, seed: 3)
        server = try await ServerProcess.start(.init(tours: [root]), data: data.url)
        #expect(try await HTTPTestClient(server).manifest(fixture.id).version == "2")
        await server.stop()
    }

    @Test func sighupReloadsAtOnce() async throws {
        let dir = try TemporaryDirectory()
        let fixture = TourFixture(slug: "hup")
        let root = try fixture.write(in: dir.url)
        let server = try await ServerProcess.start(.init(tours: [root], reloadInterval: 3600, logLevel: "info"))
        let http = HTTPTestClient(server)
        #expect(try await http.get("/tours").decode([TourSummary].self).first?.title["en"] == "hup (en)")
        let manifestURL = root.appendingPathComponent("tour.json")
        try String(contentsOf: manifestURL, encoding: .utf8).replacingOccurrences(of: "hup (en)", with: "Renamed")
            .write(to: manifestURL, atomically: true, encoding: .utf8)
        // Not checked yet.
        #expect(try await http.get("/tours").decode([TourSummary].self).first?.title["en"] == "hup (en)")
        server.signal(SIGHUP)
        #expect(try await waitFor { server.log.contains("tour folders checked") })
        #expect(try await http.get("/tours").decode([TourSummary].self).first?.title["en"] == "Renamed")
        #expect(server.isRunning)
        await server.stop()
    }
}

/// Polls `condition` for up to `timeout` seconds.
func waitFor(timeout: Double = 10, _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

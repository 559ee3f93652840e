import Foundation
import NIOHTTP1
import TestSupport
import Testing
import TourModel

/// Each fault switch does what it says, deterministically enough to test, and `/health` is exempt.
struct FaultTests {
    @Test func faultRateOneFailsEveryRequestButHealth() async throws {
        let server = try await ServerProcess.start(.init(faultRate: 1))
        let http = HTTPTestClient(server)
        for path in ["/tours", "/tours/\(TourTests.demoID)?language=en", "/nope"] {
            let reply = try await http.get(path)
            #expect([500, 502, 503].contains(reply.status), "\(path)")
            #expect(reply.error?.statusCode == reply.status)
        }
        let media = try await http.get("/media/x/y.mp3")
        #expect([500, 502, 503].contains(media.status) && media.text.hasPrefix("<?xml"))
        #expect(try await http.get("/health").status == 200)
        await server.stop()
    }

    @Test func aSeedGivesTheSameFaultsEveryRun() async throws {
        func statuses() async throws -> [Int] {
            let server = try await ServerProcess.start(.init(faultRate: 0.5, faultSeed: 42))
            let http = HTTPTestClient(server)
            var out: [Int] = []
            for _ in 0..<16 { out.append(try await http.get("/tours").status) }
            await server.stop()
            return out
        }
        let first = try await statuses()
        #expect(try await statuses() == first)
        #expect(first.contains(200) && first.contains { $0 >= 500 })
    }

    @Test func resetsCutAnswersPartWayAndAResumingClientStillGetsEveryByte() async throws {
        let dir = try TemporaryDirectory()
        let fixture = TourFixture(audioBytes: 200_000)
        let root = try fixture.write(in: dir.url)
        // Manifest from a clean server on the same data folder (same signing secret), then the faulty one.
        let data = try TemporaryDirectory()
        let clean = try await ServerProcess.start(.init(tours: [root]), data: data.url)
        let manifest = try await HTTPTestClient(clean).manifest(fixture.id)
        await clean.stop()
        let server = try await ServerProcess.start(.init(tours: [root], resetRate: 1), data: data.url)
        let url = try #require(manifest.audio.first?.url)
        let path = String(url[try #require(url.range(of: "/media/")).lowerBound...])

        let json = try RawHTTP.get(port: server.port, "/tours")
        #expect(!json.complete)

        let disk = try Data(contentsOf: root.appendingPathComponent(fixture.audioPath(order: 1, language: "en")))
        var got = Data()
        var attempts = 0
        while got.count < disk.count && attempts < 60 {
            attempts += 1
            let answer = try RawHTTP.get(
                port: server.port, path, headers: got.isEmpty ? [] : ["Range: bytes=\(got.count)-"])
            #expect(answer.status == (got.isEmpty ? 200 : 206))
            // Always cut, never before the first byte; only a last single byte comes whole.
            #expect(answer.complete == (disk.count - got.count == 1) && !answer.body.isEmpty)
            got.append(answer.body)
        }
        #expect(got == disk)
        #expect(attempts > 1)
        #expect(try await HTTPTestClient(server).get("/health").status == 200)
        await server.stop()
    }

    @Test func latencyDelaysEveryRequestButHealth() async throws {
        let server = try await ServerProcess.start(.init(latencyMilliseconds: 400))
        let http = HTTPTestClient(server)
        let clock = ContinuousClock()
        let slow = try await clock.measure { _ = try await http.get("/tours") }
        #expect(slow >= .milliseconds(400))
        let health = try await clock.measure { _ = try await http.get("/health") }
        #expect(health < .milliseconds(400))
        await server.stop()
    }

    @Test func throttlePacesMediaBodies() async throws {
        let dir = try TemporaryDirectory()
        let fixture = TourFixture(audioBytes: 60_000)
        let root = try fixture.write(in: dir.url)
        let server = try await ServerProcess.start(.init(tours: [root], throttleBytesPerSecond: 100_000))
        let http = HTTPTestClient(server)
        let url = try #require(try await http.manifest(fixture.id).audio.first?.url)
        let clock = ContinuousClock()
        var reply: Reply?
        let elapsed = try await clock.measure { reply = try await http.get(url) }
        #expect(reply?.body.count == 60_000)
        // 60 kB at 100 kB/s, in 10 kB slices a tenth of a second apart: the last goes 0.5 s on.
        #expect(elapsed >= .milliseconds(480))
        await server.stop()
    }

    @Test func rateLimitAnswers429WithRetryAfter() async throws {
        let server = try await ServerProcess.start(.init(rateLimit: 3))
        let http = HTTPTestClient(server)
        var statuses: [Int] = []
        var limited: Reply?
        for _ in 0..<8 {
            let reply = try await http.get("/tours")
            statuses.append(reply.status)
            if reply.status == 429 { limited = reply }
        }
        #expect(statuses.contains(429) && statuses.contains(200))
        let reply = try #require(limited)
        #expect(reply.header("retry-after") == "1")
        #expect(reply.error?.statusCode == 429 && reply.error?.error == "Too Many Requests")
        for _ in 0..<5 { #expect(try await http.get("/health").status == 200) }
        try await Task.sleep(for: .seconds(1.1))
        #expect(try await http.get("/tours").status == 200)
        await server.stop()
    }

    @Test func misdeclaredSizesAreOffBy13BytesAlternately() async throws {
        let server = try await ServerProcess.start(.init(misdeclareSize: true))
        let http = HTTPTestClient(server)
        let manifest = try await http.manifest(TourTests.demoID)
        for (i, file) in manifest.audio.enumerated() {
            let actual = try #require(try await http.send(.HEAD, file.url).header("content-length").flatMap(Int64.init))
            #expect(file.sizeBytes == actual + (i % 2 == 0 ? 13 : -13))
        }
        await server.stop()
    }
}

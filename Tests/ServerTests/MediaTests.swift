import Foundation
import NIOHTTP1
import TestSupport
import Testing
import TourModel
import WalkscapeServer

/// The media host: signed expiring URLs in S3's shape, Range/If-Range/ETag/HEAD, streaming, and no way
/// out of the tour folder.
struct MediaTests {
    static func audioOnDisk(_ root: URL, _ fixture: TourFixture, order: Int = 1, language: String = "en") throws -> Data
    {
        try Data(contentsOf: root.appendingPathComponent(fixture.audioPath(order: order, language: language)))
    }

    @Test func aSignedURLServesTheFileByteForByteWithS3sHeaders() async throws {
        let dir = try TemporaryDirectory()
        let fixture = TourFixture(audioBytes: 300_000, subtitles: true, images: true)
        let root = try fixture.write(in: dir.url)
        let server = try await ServerProcess.start(.init(tours: [root]))
        let http = HTTPTestClient(server)
        let manifest = try await http.manifest(fixture.id)
        let url = try #require(manifest.audio.first?.url)
        #expect(
            url.hasPrefix(
                server.baseURL + "/media/\(fixture.id)/media/en/01.mp3?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date="))
        #expect(
            url.range(
                of: #"X-Amz-Date=\d{8}T\d{6}Z&X-Amz-Expires=86400&X-Amz-Signature=[0-9a-f]{64}$"#,
                options: .regularExpression) != nil)
        let reply = try await http.get(url)
        #expect(reply.status == 200)
        #expect(reply.body == (try Self.audioOnDisk(root, fixture)))
        #expect(reply.header("content-length") == "300000" && reply.header("accept-ranges") == "bytes")
        // The fixture's "audio" is noise: served as what it is, plain bytes.
        #expect(reply.header("content-type") == "application/octet-stream")
        #expect(
            reply.header("etag")?.hasPrefix("\"") == true && reply.header("last-modified")?.hasSuffix(" GMT") == true)

        let head = try await http.send(.HEAD, url)
        #expect(head.status == 200 && head.body.isEmpty && head.header("content-length") == "300000")
        #expect(head.header("etag") == reply.header("etag"))

        let subtitle = try await http.get(try #require(manifest.subtitles.first?.url))
        #expect(subtitle.header("content-type") == "application/x-subrip" && subtitle.text.contains("Point 1"))
        let image = try await http.get(try #require(manifest.images.first?.url))
        #expect(
            image.header("content-type") == "image/jpeg" && Int64(image.body.count) == manifest.images.first?.sizeBytes)
        await server.stop()
    }

    @Test func audioIsServedAsWhatItsBytesAreWhateverItsNameWithItsExactSize() async throws {
        let dir = try TemporaryDirectory()
        let fixture = TourFixture(points: 3)
        let root = try fixture.write(in: dir.url)
        let sources = [
            FormatFixtures.encodings.first { $0.fileExtension == "m4a" }!,
            FormatFixtures.encodings.first { $0.fileExtension == "wav" }!,
        ]
        for (order, encoding) in zip(1..., sources) {
            let target = root.appendingPathComponent(fixture.audioPath(order: order, language: "en"))
            try FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(at: try FormatFixtures.file(encoding), to: target)
        }
        let mp3 = try FixtureAudio.tone(seconds: 0.5)
        let third = root.appendingPathComponent(fixture.audioPath(order: 3, language: "en"))
        try FileManager.default.removeItem(at: third)
        try FileManager.default.copyItem(at: mp3.mp3, to: third)
        try await InProcessServer.test(.init(tours: [root])) { http in
            let manifest = try await http.manifest(fixture.id)
            #expect(manifest.audio.count == 3)
            for (order, expected) in zip(1..., ["audio/mp4", "audio/wav", "audio/mpeg"]) {
                let file = root.appendingPathComponent(fixture.audioPath(order: order, language: "en"))
                #expect(file.pathExtension == "mp3")
                let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
                let entry = try #require(manifest.audio.first { $0.url.contains(file.lastPathComponent) })
                #expect(entry.sizeBytes == Int64(size))
                let reply = try await http.get(entry.url)
                #expect(reply.status == 200)
                #expect(reply.header("content-type") == expected, "point \(order)")
                #expect(reply.header("content-length") == String(size) && reply.body.count == size)
            }
        }
    }

    @Test func rangeRequestsResumeByteExact() async throws {
        let dir = try TemporaryDirectory()
        let fixture = TourFixture(audioBytes: 1_000_003)
        let root = try fixture.write(in: dir.url)
        let server = try await ServerProcess.start(.init(tours: [root]))
        let http = HTTPTestClient(server)
        let url = try #require(try await http.manifest(fixture.id).audio.first?.url)
        let disk = try Self.audioOnDisk(root, fixture)

        let first = try await http.get(url, headers: [("Range", "bytes=0-399999")])
        #expect(first.status == 206 && first.body.count == 400_000)
        #expect(first.header("content-range") == "bytes 0-399999/1000003")
        let etag = try #require(first.header("etag"))
        let rest = try await http.get(url, headers: [("Range", "bytes=400000-"), ("If-Range", etag)])
        #expect(rest.status == 206 && rest.header("content-range") == "bytes 400000-1000002/1000003")
        #expect(first.body + rest.body == disk)

        let byDate = try await http.get(
            url, headers: [("Range", "bytes=1000000-"), ("If-Range", try #require(first.header("last-modified")))])
        #expect(byDate.status == 206 && byDate.body == disk.suffix(3))
        let suffix = try await http.get(url, headers: [("Range", "bytes=-10")])
        #expect(suffix.status == 206 && suffix.body == disk.suffix(10))
        let pastEnd = try await http.get(url, headers: [("Range", "bytes=999999-2000000")])
        #expect(pastEnd.status == 206 && pastEnd.body == disk.suffix(4))

        // A stale validator: the file changed, so the whole (new) file comes back, not a splice.
        let stale = try await http.get(url, headers: [("Range", "bytes=400000-"), ("If-Range", "\"0-0-0\"")])
        #expect(stale.status == 200 && stale.body == disk)
        // Several ranges, or nonsense: ignored, the whole file.
        #expect(try await http.get(url, headers: [("Range", "bytes=0-1,5-6")]).status == 200)
        #expect(try await http.get(url, headers: [("Range", "lines=1-2")]).status == 200)

        let unsatisfiable = try await http.get(url, headers: [("Range", "bytes=1000003-")])
        #expect(unsatisfiable.status == 416)
        #expect(unsatisfiable.header("content-range") == "bytes */1000003")
        #expect(unsatisfiable.text.contains("<Code>InvalidRange</Code>"))

        let notModified = try await http.get(url, headers: [("If-None-Match", etag)])
        #expect(notModified.status == 304 && notModified.body.isEmpty)
        // If-Modified-Since: the file's own date or later is 304; a date after the server's clock
        // is no date at all (a client's clock or cache gone wrong), so the file is sent, as Apache
        // and S3 do: such a date kept the file from the client for as long as it asked with it.
        let modified = try #require(first.header("last-modified"))
        #expect(try await http.get(url, headers: [("If-Modified-Since", modified)]).status == 304)
        #expect(
            try await http.get(url, headers: [("If-Modified-Since", "Sun, 01 Jan 2006 00:00:00 GMT")]).status == 200)
        let future = try await http.get(url, headers: [("If-Modified-Since", "Fri, 31 Dec 9999 23:59:59 GMT")])
        #expect(future.status == 200 && future.body == disk)
        await server.stop()
    }

    @Test func expiredAndTamperedURLsGet403WithAnS3Body() async throws {
        let dir = try TemporaryDirectory()
        let fixture = TourFixture()
        let root = try fixture.write(in: dir.url)
        let server = try await ServerProcess.start(.init(tours: [root], urlTTL: 2))
        let http = HTTPTestClient(server)
        let url = try #require(try await http.manifest(fixture.id).audio.first?.url)
        #expect(url.contains("X-Amz-Expires=2&"))
        #expect(try await http.get(url).status == 200)

        let tampered = [
            url.replacingOccurrences(of: "X-Amz-Expires=2", with: "X-Amz-Expires=99999"),
            url.replacingOccurrences(of: "/01.mp3?", with: "/02.mp3?"),
            String(url.dropLast()) + (url.hasSuffix("0") ? "1" : "0"),
        ]
        for bad in tampered {
            let reply = try await http.get(bad)
            #expect(reply.status == 403, "\(bad)")
            #expect(reply.header("content-type") == "application/xml")
            #expect(reply.text.contains("<Error><Code>SignatureDoesNotMatch</Code>"))
        }
        let unsigned = try await http.get(String(url.prefix(while: { $0 != "?" })))
        #expect(unsigned.status == 403 && unsigned.text.contains("<Code>AccessDenied</Code>"))

        // Signed for 2 s from a whole second no later than the signing (X-Amz-Date): gone just
        // after X-Amz-Date + 2 s.
        let expiry = try #require(PresignedURL.expiry(of: url))
        try await Task.sleep(for: .seconds(max(0, expiry.timeIntervalSinceNow + 0.1)))
        let expired = try await http.get(url)
        #expect(expired.status == 403)
        #expect(expired.text.contains("<Error><Code>AccessDenied</Code><Message>Request has expired</Message>"))
        #expect(expired.text.contains("<X-Amz-Expires>2</X-Amz-Expires>"))
        // A fresh manifest signs anew.
        #expect(try await http.get(try #require(try await http.manifest(fixture.id).audio.first?.url)).status == 200)
        await server.stop()
    }

    /// A symlink that stays inside the tour folder is served as the file it leads to (docs: only a
    /// link whose real path leaves the folder is refused); it was refused as "not a regular file".
    @Test func aSymlinkInsideTheFolderIsServedAsItsFile() async throws {
        let dir = try TemporaryDirectory()
        let fixture = TourFixture(points: 2)
        let root = try fixture.write(in: dir.url, name: "tour")
        let second = root.appendingPathComponent(fixture.audioPath(order: 2, language: "en"))
        let first = root.appendingPathComponent(fixture.audioPath(order: 1, language: "en"))
        try FileManager.default.removeItem(at: second)
        try FileManager.default.createSymbolicLink(atPath: second.path, withDestinationPath: first.lastPathComponent)
        let server = try await ServerProcess.start(.init(tours: [root], logLevel: "error"))
        let http = HTTPTestClient(server)
        let manifest = try await http.manifest(fixture.id)
        #expect(manifest.audio.map(\.pointID) == [fixture.pointID(order: 1), fixture.pointID(order: 2)])
        let linked = try #require(manifest.audio.last?.url)
        let answer = try await http.get(linked)
        #expect(answer.status == 200)
        #expect(answer.body == (try Data(contentsOf: first)))
        await server.stop()
    }

    /// Paths are looked up among the files tour.json names, never joined onto the folder: even a
    /// correctly signed `..` names nothing, and a symlink leading out of the folder is not served.
    @Test func noPathLeavesTheTourFolder() async throws {
        let dir = try TemporaryDirectory()
        let outside = try dir.write("outside-secret.txt", "SECRET OUTSIDE THE TOUR")
        let fixture = TourFixture(points: 2)

        // A folder whose file leads outside it is not a tour (docs/tour-folder.md): never served.
        let broken = try fixture.write(in: dir.url, name: "linked")
        let brokenAudio = broken.appendingPathComponent(fixture.audioPath(order: 2, language: "en"))
        try FileManager.default.removeItem(at: brokenAudio)
        try FileManager.default.createSymbolicLink(at: brokenAudio, withDestinationURL: outside)
        do {
            let server = try await ServerProcess.start(.init(tours: [broken], logLevel: "error"))
            Issue.record("a tour with a file outside its folder was served at \(server.baseURL)")
            await server.stop()
        } catch let failure as ServerProcess.StartFailure {
            #expect(failure.description.contains("outside the tour folder"), "\(failure)")
        }

        // A file swapped for such a link while the server runs: its signed URL no longer serves it.
        let root = try fixture.write(in: dir.url, name: "tour")
        let server = try await ServerProcess.start(.init(tours: [root], reloadInterval: 0, logLevel: "error"))
        let http = HTTPTestClient(server)
        let manifest = try await http.manifest(fixture.id)
        #expect(manifest.audio.map(\.pointID) == [fixture.pointID(order: 1), fixture.pointID(order: 2)])
        let linked = root.appendingPathComponent(fixture.audioPath(order: 2, language: "en"))
        try FileManager.default.removeItem(at: linked)
        try FileManager.default.createSymbolicLink(at: linked, withDestinationURL: outside)
        let swapped = try #require(manifest.audio.last?.url)
        let swappedAnswer = try await http.get(swapped)
        #expect(swappedAnswer.status != 200 && swappedAnswer.status != 206)
        #expect(!String(decoding: swappedAnswer.body, as: UTF8.self).contains("SECRET"))

        // Anyone can put dots in a URL; without our signature they get 403.
        let good = try #require(manifest.audio.first?.url)
        let query = String(good[good.firstIndex(of: "?")!...])
        for path in [
            "/media/\(fixture.id)/../outside-secret.txt", "/media/\(fixture.id)/%2e%2e/outside-secret.txt",
            "/media/\(fixture.id)/media%2F..%2F..%2Foutside-secret.txt", "/media/../../etc/passwd",
            "/media/\(fixture.id)/tour.json",
        ] {
            let answer = try RawHTTP.get(port: server.port, path + query)
            #expect(answer.status == 403, "\(path)")
            #expect(!String(decoding: answer.body, as: UTF8.self).contains("SECRET"))
        }

        // With the server's own key (read from its data folder), sign the traversals: still nothing.
        let signer = MediaSigner(secrets: try ServerSecrets.load(dataDirectory: server.dataDirectory))
        let now = Date()
        for path in [
            "/media/\(fixture.id)/..%2Foutside-secret.txt", "/media/\(fixture.id)/../outside-secret.txt",
            "/media/\(fixture.id)/%2e%2e/outside-secret.txt", "/media/\(fixture.id)/tour.json",
            "/media/\(fixture.id)/media/en//01.mp3", "/media/\(fixture.id)/./media/en/01.mp3",
            MediaSigner.path(tourID: fixture.id, relativePath: fixture.audioPath(order: 2, language: "en")),
        ] {
            guard let segments = MediaSignerPaths.canonical(path) else { continue }
            let answer = try RawHTTP.get(
                port: server.port, path + "?" + signer.query(path: segments, date: now, seconds: 60))
            #expect(answer.status == 404, "\(path): \(answer.status)")
            #expect(String(decoding: answer.body, as: UTF8.self).contains("<Code>NoSuchKey</Code>"))
            #expect(!String(decoding: answer.body, as: UTF8.self).contains("SECRET"))
        }
        // The signing itself is sound: the same route, properly named, serves.
        let proper = MediaSigner.path(tourID: fixture.id, relativePath: fixture.audioPath(order: 1, language: "en"))
        #expect(
            try RawHTTP.get(port: server.port, proper + "?" + signer.query(path: proper, date: now, seconds: 60)).status
                == 200)
        await server.stop()
    }

    @Test func fileNamesThatNeedEscapingAreServed() async throws {
        let dir = try TemporaryDirectory()
        let fixture = TourFixture(points: 1, firstAudioName: "Piazza del Nettuno – già #1?.mp3")
        let root = try fixture.write(in: dir.url)
        let server = try await ServerProcess.start(.init(tours: [root]))
        let http = HTTPTestClient(server)
        let url = try #require(try await http.manifest(fixture.id).audio.first?.url)
        #expect(url.contains("Piazza%20del%20Nettuno%20%E2%80%93%20gi%C3%A0%20%231%3F.mp3?"))
        #expect(try await http.get(url).body == (try Self.audioOnDisk(root, fixture)))
        await server.stop()
    }

    @Test func protectedToursMediaIsAsOpenAsItsSignedURL() async throws {
        // As with S3 presigned URLs, the URL is the permission: whoever got it from the manifest may fetch it.
        let dir = try TemporaryDirectory()
        let fixture = TourFixture(isProtected: true)
        let root = try fixture.write(in: dir.url)
        let server = try await ServerProcess.start(.init(tours: [root]))
        let http = HTTPTestClient(server)
        try server.addVoucher("OPEN", tour: fixture.id)
        let token = try await http.register("ada@example.org").tokens.accessToken
        _ = try await http.post("/vouchers/validate", ["code": "OPEN"], token: token)
        let url = try #require(try await http.manifest(fixture.id, token: token).audio.first?.url)
        #expect(try await http.get(url).status == 200)
        await server.stop()
    }

    @Test func mediaURLsAreSignedForThePublicURLWhenGiven() async throws {
        let server = try await ServerProcess.start(.init(publicURL: "http://192.0.2.7:9999/"))
        #expect(server.baseURL == "http://127.0.0.1:\(server.port)")  // stdout says where this machine reaches it
        let manifest = try await HTTPTestClient(server).manifest(TourTests.demoID)
        let url = try #require(manifest.audio.first?.url)
        #expect(url.hasPrefix("http://192.0.2.7:9999/media/"))
        // The signature covers the path, not the host: the same URL works on the address we can reach.
        let reachable = url.replacingOccurrences(of: "http://192.0.2.7:9999", with: "http://127.0.0.1:\(server.port)")
        #expect(try await HTTPTestClient(server).get(reachable).status == 200)
        await server.stop()
    }
}

/// The canonical form the signer signs (each segment decoded and re-encoded); nil for paths a client
/// could not have been given.
enum MediaSignerPaths {
    static func canonical(_ path: String) -> String? {
        guard path.hasPrefix(MediaSigner.prefix) else { return nil }
        var out: [String] = []
        for raw in path.dropFirst(MediaSigner.prefix.count).split(separator: "/", omittingEmptySubsequences: false) {
            guard let decoded = String(raw).removingPercentEncoding else { return nil }
            out.append(
                decoded.addingPercentEncoding(
                    withAllowedCharacters: .init(
                        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? decoded)
        }
        return MediaSigner.prefix + out.joined(separator: "/")
    }
}

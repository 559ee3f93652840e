import Crypto
import Foundation
import ServiceTestSupport
import Synchronization
import TestSupport
import Testing
import TourAPI
import TourModel

@testable import TourStore

/// The downloader's rules at its seam (`TourSource`), with a real store on a temporary folder and
/// a scripted service: what it asks for after a refusal, and when content counts as changed. The
/// capability itself is tested against the real server (DownloadFaultTests, KillTests).
@Suite struct DownloaderRuleTests {
    /// A service that answers media requests from a script and records what it was asked.
    final class ScriptedSource: TourSource, @unchecked Sendable {
        let lock = NSLock()
        var manifests: [TourManifest]
        var points: [TourPoint]
        var detail: TourDetail
        var script: [(URL, HTTPHeaderFields) throws(APIError) -> HTTPResponse]
        var requests: [(url: URL, headers: HTTPHeaderFields)] = []
        var manifestCalls = 0
        /// The rule for links (`TourSource.mediaLinkProblem`): none refused unless set.
        var judge: @Sendable (URL) -> APIError? = { _ in nil }

        func mediaLinkProblem(_ url: URL) -> APIError? { judge(url) }

        init(
            detail: TourDetail, points: [TourPoint], manifests: [TourManifest],
            script: [(URL, HTTPHeaderFields) throws(APIError) -> HTTPResponse]
        ) {
            self.detail = detail
            self.points = points
            self.manifests = manifests
            self.script = script
        }

        func tour(_ id: String, language: String) async throws(APIError) -> TourDetail { detail }
        func points(ofTour id: String, language: String) async throws(APIError) -> [TourPoint] { points }
        func manifest(ofTour id: String, language: String) async throws(APIError) -> TourManifest {
            lock.withLock {
                manifestCalls += 1
                return manifests[min(manifestCalls - 1, manifests.count - 1)]
            }
        }
        func fetch(_ url: URL, headers: HTTPHeaderFields, timeout: Duration?) async throws(APIError) -> HTTPResponse {
            let next = lock.withLock {
                requests.append((url, headers))
                return script.removeFirst()
            }
            return try next(url, headers)
        }
    }

    static let bytes: [UInt8] = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    static func body(_ chunk: ArraySlice<UInt8>, thenBreak: Bool = false) -> ResponseBody {
        ResponseBody {
            var sent = false
            return ResponseBody.AsyncIterator {
                if sent {
                    if thenBreak {
                        throw TransportError(.connectionLost, "the connection closed before the answer was complete")
                    }
                    return nil
                }
                sent = true
                return BodyChunk(chunk)
            }
        }
    }

    static func manifest(_ url: String, size: Int64 = Int64(bytes.count), version: String = "1") -> TourManifest {
        TourManifest(
            tourID: "t1", language: "en", version: version,
            audio: [MediaFile(pointID: "p1", order: 1, url: url, sizeBytes: size)])
    }

    static let detail = TourDetail(id: "t1", slug: "scripted", title: "Scripted", languages: ["en"])
    static let points = [
        TourPoint(
            id: "p1", order: 1, coordinate: Coordinate(latitude: 44.49, longitude: 11.34),
            triggerRadiusMeters: 30, title: "One")
    ]

    /// The whole file in one answer, with its validator.
    static let whole: @Sendable (URL, HTTPHeaderFields) -> HTTPResponse = { url, _ in
        HTTPResponse(
            status: 200, headers: ["Content-Length": "\(bytes.count)", "ETag": "\"v1\""],
            body: body(bytes[...]), url: url)
    }

    /// Plans and installs the tour `source` serves into `store`.
    @discardableResult
    static func install(
        _ source: ScriptedSource, into store: TourStore, tourID: String = "t1", slug: String = "scripted",
        timer: any RetryTimer = SystemRetryTimer(), report: @escaping @Sendable (DownloadEvent) -> Void = { _ in }
    ) async throws(StoreError) -> InstallReport {
        let downloader = TourDownloader(
            store: store, source: source, audioCheck: { _ in nil }, report: report, timer: timer)
        return try await downloader.install(
            try await downloader.plan(
                tourID: tourID, slug: slug, isProtected: false, service: "test", languages: ["en"]))
    }

    /// The one-file tour at https://media.example.org/1.mp3, its media requests answered by `script`.
    static func oneFile(_ script: [(URL, HTTPHeaderFields) throws(APIError) -> HTTPResponse]) -> ScriptedSource {
        ScriptedSource(
            detail: detail, points: points, manifests: [manifest("https://media.example.org/1.mp3")], script: script)
    }

    /// A media host that cannot be reached: the transport's failure, as the client names it.
    static func unreachable(_ kind: TransportError.Kind, _ detail: String) -> (URL, HTTPHeaderFields) throws(APIError)
        -> HTTPResponse
    {
        { _, _ throws(APIError) in
            throw APIError(TransportError(kind, detail), service: URL(string: "https://media.example.org")!)
        }
    }

    /// Installs the one-file tour from `script`, which must fail: the error, the requests made and
    /// the pauses between them.
    func failedInstall(
        _ script: [(URL, HTTPHeaderFields) throws(APIError) -> HTTPResponse]
    ) async throws -> (error: StoreError?, requests: Int, sleeps: [Duration], installed: Bool) {
        let (store, folder) = try store()
        _ = folder
        let source = Self.oneFile(script)
        let timer = RecordedTimer()
        var failure: StoreError?
        do { try await Self.install(source, into: store, timer: timer) } catch { failure = error }
        return (failure, source.requests.count, timer.sleeps, !(try store.installedTours().isEmpty))
    }

    func store() throws -> (TourStore, TemporaryDirectory) {
        let folder = try TemporaryDirectory(prefix: "walkscape-store-unit")
        return (try TourStore.open(StoreLocation(dataFolder: folder.url)), folder)
    }

    @Test func aRefusedLinkIsRenewedFromAFreshManifestAndTheFileGoesOnFromTheSameByte() async throws {
        let (store, folder) = try store()
        _ = folder
        let half = 4_000
        let source = ScriptedSource(
            detail: Self.detail, points: Self.points,
            manifests: [
                Self.manifest("https://media.example.org/t1/en/01.mp3?X-Amz-Signature=old"),
                Self.manifest("https://media.example.org/t1/en/01.mp3?X-Amz-Signature=new"),
            ],
            script: [
                { url, _ in
                    HTTPResponse(
                        status: 200, headers: ["Content-Length": "\(Self.bytes.count)", "ETag": "\"v1\""],
                        body: Self.body(Self.bytes[..<half], thenBreak: true), url: url)
                },
                { url, _ in
                    HTTPResponse(
                        status: 403, body: .bytes(Data("<Error><Code>AccessDenied</Code></Error>".utf8)), url: url)
                },
                { url, _ in
                    HTTPResponse(
                        status: 206,
                        headers: ["Content-Range": "bytes \(half)-\(Self.bytes.count - 1)/\(Self.bytes.count)"],
                        body: Self.body(Self.bytes[half...]), url: url)
                },
            ])
        // Said as what happened: refused, not "expired" (a 404 said "its link expired" three times).
        let renewals = Mutex<[String]>([])
        let downloader = TourDownloader(
            store: store, source: source, audioCheck: { _ in nil },
            report: { event in
                if case .linkRenewed(_, _, let why) = event { renewals.withLock { $0.append(why) } }
            })
        let plan = try await downloader.plan(
            tourID: "t1", slug: "scripted", isProtected: false, service: "test", languages: ["en"])
        let report = try await downloader.install(plan)

        #expect(source.requests.count == 3)
        #expect(source.requests[0].headers["Range"] == nil)
        #expect(source.requests[1].headers["Range"] == "bytes=\(half)-")
        #expect(source.requests[1].headers["If-Range"] == "\"v1\"")
        #expect(source.requests[2].url.query?.contains("new") == true, "the refused link was used again")
        #expect(source.requests[2].headers["Range"] == "bytes=\(half)-")
        #expect(report.bytesReceived == Int64(Self.bytes.count))
        #expect(report.linkRenewals == 1)
        #expect(renewals.withLock { $0 } == ["the media host refused its link (HTTP 403)"])
        let sha = SHA256.hash(data: Data(Self.bytes)).map { String(format: "%02x", $0) }.joined()
        let installed = try #require(try store.installedTour(id: "t1"))
        #expect(installed.languages.first?.files.first?.sha256 == sha)
        #expect(try Data(contentsOf: store.blobs.url(of: sha)) == Data(Self.bytes))
    }

    /// A download killed between recording a finished file and moving it into the store leaves a
    /// blob row without its file (the part file still holds it; the next download moves it). No
    /// installed version uses it yet: verify must not call the store damaged (it did, exit 65,
    /// after a kill at that moment) but count it with the files nothing uses.
    @Test func aFinishedFileNotYetMovedIntoTheStoreIsNotDamage() async throws {
        let (store, folder) = try store()
        _ = folder
        try await Self.install(Self.oneFile([Self.whole]), into: store)
        #expect(try store.verify(tourIDs: nil).isClean)

        // The next version's file, recorded, then the kill before its rename.
        let next = String(repeating: "c3", count: 32)
        try store.recordBlob(
            next, for: FileIdentity(url: "https://media.example.org/2.mp3", size: 7_000), now: Date())
        let report = try store.verify(tourIDs: nil)
        #expect(report.problems.isEmpty, "\(report.problems.map(\.description))")
        #expect(report.isClean)
        #expect(report.blobsChecked == 1)
        #expect(report.unusedBlobs == 1 && report.unusedBytes == 7_000)
        // A missing file an installed version uses is still damage.
        let used = try #require(try store.installedTour(id: "t1")?.languages.first?.files.first?.sha256)
        store.blobs.remove(used)
        #expect(try store.verify(tourIDs: nil).problems.map(\.issue) == [.missing])
    }

    /// Ctrl-C once every file is in, while narrations wait for the judge: the download stops
    /// there, and judges none of the narrations still waiting (each would be decoded in full).
    @Test func aDownloadStoppedWhileItsNarrationsAreJudgedJudgesNoMoreOfThem() async throws {
        let (store, folder) = try store()
        _ = folder
        let urls = (1...3).map { "https://media.example.org/t1/en/0\($0).mp3" }
        let manifest = TourManifest(
            tourID: "t1", language: "en", version: "1",
            audio: urls.enumerated().map {
                MediaFile(pointID: "p\($0.offset + 1)", order: $0.offset + 1, url: $0.element, sizeBytes: 10_000)
            })
        let points = (1...3).map {
            TourPoint(
                id: "p\($0)", order: $0, coordinate: Coordinate(latitude: 44.49, longitude: 11.34),
                triggerRadiusMeters: 30, title: "Point \($0)")
        }
        // Each file its own bytes, so each is its own blob and judged by itself.
        let distinct: (URL, HTTPHeaderFields) -> HTTPResponse = { url, _ in
            var bytes = Self.bytes
            bytes[0] = url.lastPathComponent.utf8.dropFirst().first ?? 0
            return HTTPResponse(
                status: 200, headers: ["Content-Length": "\(bytes.count)", "ETag": "\"v1\""],
                body: Self.body(bytes[...]), url: url)
        }
        let source = ScriptedSource(
            detail: Self.detail, points: points, manifests: [manifest], script: [distinct, distinct, distinct])
        let checks = Mutex(0)
        let release = DispatchSemaphore(value: 0)
        let downloader = TourDownloader(
            store: store, source: source,
            audioCheck: { _ in
                // The first narration holds the judge until the download is stopped.
                if checks.withLock({
                    $0 += 1; return $0
                }) == 1 {
                    release.wait()
                }
                return nil
            })
        let plan = try await downloader.plan(
            tourID: "t1", slug: "scripted", isProtected: false, service: "test", languages: ["en"])
        let install = Task { try await downloader.install(plan) }
        while checks.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(1)) }
        try await Task.sleep(for: .milliseconds(50))  // the other two are in and wait for the judge
        install.cancel()
        release.signal()
        let outcome = await install.result
        #expect(throws: StoreError.self) { try outcome.get() }
        #expect(checks.withLock { $0 } == 1)
    }

    @Test func aBodyLongerThanDeclaredIsTriedOnceMoreThenNamedAndEachBodyIsReadOnce() async throws {
        let (store, folder) = try store()
        _ = folder
        // Like AsyncHTTPClient, a body that can be read once: a second reader is counted (AHC traps).
        let readers = Mutex(0)
        let tooLong: (URL, HTTPHeaderFields) -> HTTPResponse = { url, _ in
            let body = ResponseBody {
                readers.withLock { $0 += 1 }
                var sent = false
                return ResponseBody.AsyncIterator {
                    if sent { return nil }
                    sent = true
                    return BodyChunk(Self.bytes + [1, 2, 3])
                }
            }
            return HTTPResponse(status: 200, body: body, url: url)
        }
        let source = Self.oneFile([tooLong, tooLong])
        let downloader = TourDownloader(store: store, source: source, audioCheck: { _ in nil })
        let plan = try await downloader.plan(
            tourID: "t1", slug: "scripted", isProtected: false, service: "test", languages: ["en"])
        do {
            _ = try await downloader.install(plan)
            Issue.record("a body longer than declared was installed")
        } catch {
            #expect(error.kind == .badData)
            #expect(error.message.contains("the service declares 10000 bytes but sends more bytes"), "\(error.message)")
        }
        #expect(source.requests.count == 2)
        #expect(readers.withLock { $0 } == 2, "a body was read twice")
        #expect(try store.installedTours().isEmpty)
    }

    @Test func aHostThatIgnoresRangeAndBreaksOffIsGivenUpOnNotFetchedForever() async throws {
        // Every answer is the whole file from byte 0 (Range ignored), cut after 4,000 bytes: each
        // attempt starts over and ends where the last one did. After 30 of them the host would
        // behave, but a downloader that counts re-sent bytes as progress never stops on its own.
        let cut: (URL, HTTPHeaderFields) -> HTTPResponse = { url, _ in
            HTTPResponse(
                status: 200, headers: ["Content-Length": "\(Self.bytes.count)", "ETag": "\"v1\""],
                body: Self.body(Self.bytes[..<4_000], thenBreak: true), url: url)
        }
        let outcome = try await failedInstall(Array(repeating: cut, count: 30) + [Self.whole])
        let message = outcome.error?.message ?? "installed after \(outcome.requests) requests"
        #expect(message.contains("the download keeps breaking off"), "\(message)")
        #expect(outcome.requests == 6, "\(outcome.requests) requests")
        // A pause before each attempt after the first, doubling from 0.2 s up to the 3 s cap.
        #expect(outcome.sleeps == [200, 400, 800, 1600, 3000].map { Duration.milliseconds($0) }, "\(outcome.sleeps)")
        #expect(!outcome.installed)
    }

    /// The media host restarting, or the link dropping for a moment, mid-download: connections
    /// refused for a while are ridden out with the pauses of any other failure, and the file goes
    /// on from its byte (a server restarted 3 s into a download ended it with exit 69, half a
    /// second after the first refusal).
    @Test func aHostThatRefusesConnectionsForAMomentIsWaitedForAndTheFileGoesOn() async throws {
        let (store, folder) = try store()
        _ = folder
        let half = 4_000
        let refused = Self.unreachable(.cannotConnect, "connection refused")
        let silent = Self.unreachable(.connectTimeout, "no connection within 5 s")
        let source = Self.oneFile([
            { url, _ in
                HTTPResponse(
                    status: 200, headers: ["Content-Length": "\(Self.bytes.count)", "ETag": "\"v1\""],
                    body: Self.body(Self.bytes[..<half], thenBreak: true), url: url)
            },
            refused, silent,
            { url, _ in
                HTTPResponse(
                    status: 206,
                    headers: ["Content-Range": "bytes \(half)-\(Self.bytes.count - 1)/\(Self.bytes.count)"],
                    body: Self.body(Self.bytes[half...]), url: url)
            },
        ])
        let timer = RecordedTimer()
        let report = try await Self.install(source, into: store, timer: timer)
        #expect(source.requests.count == 4)
        #expect(source.requests[3].headers["Range"] == "bytes=\(half)-")
        #expect(timer.sleeps == [200, 400, 800].map { Duration.milliseconds($0) }, "\(timer.sleeps)")
        #expect(report.bytesReceived == Int64(Self.bytes.count))
        #expect(try store.installedTour(id: "t1") != nil)
    }

    /// The end of the transfers is said as the last file is in, before the narrations are
    /// checked and the tour switched: the progress stops there (it went on saying "nothing
    /// arriving" while the checks ran).
    @Test func theEndOfTheTransfersIsSaidBeforeTheChecksAndTheSwitch() async throws {
        let (store, folder) = try store()
        _ = folder
        let events = Mutex<[String]>([])
        try await Self.install(Self.oneFile([Self.whole]), into: store) { event in
            let name: String? =
                switch event {
                case .fileDone: "file"
                case .transfersEnded: "ended"
                case .switched: "switched"
                default: nil
                }
            if let name { events.withLock { $0.append(name) } }
        }
        #expect(events.withLock { $0 } == ["file", "ended", "switched"])
    }

    /// A host that is never reachable is given up on after as many tries as any other failure,
    /// with the reason it gave.
    @Test func aHostThatNeverAcceptsAConnectionIsGivenUpOnAfterSixTries() async throws {
        let refused = Self.unreachable(.cannotConnect, "connection refused")
        let outcome = try await failedInstall(Array(repeating: refused, count: 6) + [Self.whole])
        let error = try #require(outcome.error, "installed after \(outcome.requests) requests")
        #expect(error.message.contains("connection refused"), "\(error.message)")
        #expect(error.kind == .service(.unavailable), "\(error.kind)")
        #expect(outcome.requests == 6)
        #expect(outcome.sleeps == [200, 400, 800, 1600, 3000].map { Duration.milliseconds($0) }, "\(outcome.sleeps)")
    }

    /// A media host the name service says does not exist is not waited for: one request, no
    /// pause, its words (the pauses of a link down came to about ten seconds).
    @Test func aHostWithNoSuchNameIsGivenUpOnAtOnce() async throws {
        let nameless = Self.unreachable(.noSuchHost, "no host is named media.example.org")
        let outcome = try await failedInstall([nameless, Self.whole])
        let error = try #require(outcome.error, "installed after \(outcome.requests) requests")
        #expect(error.message.contains("no host is named media.example.org"), "\(error.message)")
        #expect(error.kind == .service(.unavailable), "\(error.kind)")
        #expect(outcome.requests == 1)
        #expect(outcome.sleeps.isEmpty, "\(outcome.sleeps)")
    }

    /// A host that answers every request, even the first (no `Range`), with a 206 for bytes it was
    /// not asked for is given up on after six tries, in words that say so (it was "keeps breaking
    /// off", exit 75, after the connection was called closed).
    /// A file that is not its declared size twice over is checked against the manifest once more:
    /// changed there too, the tour changed on the service during the download (planned again by
    /// the command), not the service's fault.
    @Test func aFileTheManifestNowDeclaresAtItsNewSizeIsATourChangedNotBadData() async throws {
        let (store, folder) = try store()
        _ = folder
        let url = "https://media.example.org/1.mp3"
        let longer = Self.bytes + Self.bytes[..<2_000]
        let republished: @Sendable (URL, HTTPHeaderFields) -> HTTPResponse = { url, _ in
            HTTPResponse(
                status: 200, headers: ["Content-Length": "\(longer.count)"], body: Self.body(longer[...]), url: url)
        }
        let source = ScriptedSource(
            detail: Self.detail, points: Self.points,
            manifests: [Self.manifest(url), Self.manifest(url, size: Int64(longer.count), version: "2")],
            script: [republished, republished])
        do {
            try await Self.install(source, into: store)
            Issue.record("installed")
        } catch {
            #expect(error.kind == .tourChanged)
            #expect(error.message.hasSuffix(" changed on the service during the download"), "\(error.message)")
        }
        #expect(source.requests.count == 2)
        #expect(try store.installedTours().isEmpty)
    }

    @Test func aHostThatAnswersWithBytesNotAskedForIsGivenUpOnInItsOwnWords() async throws {
        let (store, folder) = try store()
        _ = folder
        let wrong: (URL, HTTPHeaderFields) -> HTTPResponse = { url, _ in
            HTTPResponse(
                status: 206, headers: ["Content-Range": "bytes 5000-9999/\(Self.bytes.count)", "ETag": "\"v1\""],
                body: Self.body(Self.bytes[5_000...], thenBreak: false), url: url)
        }
        let source = Self.oneFile(Array(repeating: wrong, count: 30) + [Self.whole])
        let downloader = TourDownloader(
            store: store, source: source, audioCheck: { _ in nil }, timer: RecordedTimer())
        let plan = try await downloader.plan(
            tourID: "t1", slug: "scripted", isProtected: false, service: "test", languages: ["en"])
        do {
            _ = try await downloader.install(plan)
            Issue.record("installed after \(source.requests.count) requests")
        } catch {
            #expect(error.kind == .badData)
            #expect(
                error.message.contains(
                    "answers with other bytes than those asked for (Content-Range: bytes 5000-9999/10000)"),
                "\(error.message)")
        }
        #expect(source.requests.count == 6, "\(source.requests.count) requests")
        #expect(try store.installedTours().isEmpty)
    }

    /// Nobody logged in: media requests never carry a token.
    struct NoCredentials: CredentialStore {
        func load() throws(APIError) -> Credentials? { nil }
        func save(_ credentials: Credentials) throws(APIError) {}
        func remove() throws(APIError) {}
        func exclusively<T: Sendable>(_ body: @Sendable () async throws(APIError) -> T) async throws(APIError) -> T {
            try await body()
        }
    }

    /// Every link is judged by the service client's own rules before the first byte is fetched: a
    /// plain-http link to another host in a tour's last file was refused only after the others
    /// had downloaded.
    @Test func aLinkTheClientWouldRefuseIsRefusedBeforeAnythingIsFetched() async throws {
        let (store, folder) = try store()
        _ = folder
        let transport = AsyncHTTPClientTransport()
        defer { Task { try? await transport.shutdown() } }
        let client = APIClient(
            channel: ServiceChannel(
                service: try #require(URL(string: "https://walks.example.org")),
                executor: RequestExecutor(transport: transport), userAgent: "walkscape-tests"),
            credentials: NoCredentials())
        for (link, words) in [
            ("http://media.example.org/2.mp3", "plain http from media.example.org"),
            ("https://media.example.org:70000/2.mp3", "1-65535"), ("ftp://media.example.org/2.mp3", "ftp://"),
        ] {
            let manifest = TourManifest(
                tourID: "t1", language: "en", version: "1",
                audio: [
                    MediaFile(pointID: "p1", order: 1, url: "https://media.example.org/1.mp3", sizeBytes: 10_000),
                    MediaFile(pointID: "p1", order: 2, url: link, sizeBytes: 10_000),
                ])
            let source = ScriptedSource(
                detail: Self.detail, points: Self.points, manifests: [manifest], script: [Self.whole, Self.whole])
            source.judge = { client.mediaLinkProblem($0) }
            let downloader = TourDownloader(store: store, source: source, audioCheck: { _ in nil })
            do {
                let plan = try await downloader.plan(
                    tourID: "t1", slug: "scripted", isProtected: false, service: "test", languages: ["en"])
                _ = try await downloader.install(plan)
                Issue.record("\(link) was accepted")
            } catch {
                #expect(error.message.contains(words), "\(error.message)")
            }
            #expect(source.requests.isEmpty, "\(link): \(source.requests.count) files fetched first")
        }
    }

    @Test func pointsTheServiceGivesOneIDAreRefusedNotMergedAndNothingIsFetched() async throws {
        let (store, folder) = try store()
        _ = folder
        // Five points, four of them claiming id p1: merged, four narrations would be lost.
        var points = (1...5).map { order in
            TourPoint(
                id: order == 3 ? "p3" : "p1", order: order,
                coordinate: Coordinate(latitude: 44.49 + Double(order) * 0.001, longitude: 11.34),
                triggerRadiusMeters: 30, title: "Point \(order)")
        }
        let source = ScriptedSource(
            detail: Self.detail, points: points, manifests: [Self.manifest("https://media.example.org/1.mp3")],
            script: [])
        let downloader = TourDownloader(store: store, source: source, audioCheck: { _ in nil })
        do {
            _ = try await downloader.plan(
                tourID: "t1", slug: "scripted", isProtected: false, service: "test", languages: ["en"])
            Issue.record("points sharing an id were accepted")
        } catch {
            #expect(error.kind == .badData)
            #expect(
                error.message
                    == "the service gives 4 points of scripted in 'en' the same id \"p1\" (orders 1, 2, 4, 5): they would be merged into one, so the tour is not installed"
            )
        }
        #expect(source.requests.isEmpty)
        #expect(try store.installedTours().isEmpty)
        // Distinct ids install as before.
        points[1].id = "p2"
        points[3].id = "p4"
        points[4].id = "p5"
        #expect(throws: Never.self) { try TourDownloader.refuseSharedIDs(points, slug: "scripted", language: "en") }
    }

    @Test func contentCountsAsChangedWhenAFileChangesEvenIfTheManifestVersionDoesNot() async throws {
        let (store, folder) = try store()
        _ = folder
        let url = "https://media.example.org/t1/en/01.mp3?X-Amz-Signature=a"
        let first = ScriptedSource(
            detail: Self.detail, points: Self.points, manifests: [Self.manifest(url)], script: [Self.whole])
        let downloader = TourDownloader(store: store, source: first, audioCheck: { _ in nil })
        _ = try await downloader.install(
            try await downloader.plan(
                tourID: "t1", slug: "scripted", isProtected: false,
                service: "test", languages: ["en"]))

        // The same content signed again: up to date, nothing fetched.
        let resigned = ScriptedSource(
            detail: Self.detail, points: Self.points,
            manifests: [Self.manifest("https://media.example.org/t1/en/01.mp3?X-Amz-Signature=b")], script: [])
        let same = try await TourDownloader(store: store, source: resigned, audioCheck: { _ in nil })
            .plan(tourID: "t1", slug: "scripted", isProtected: false, service: "test", languages: ["en"])
        #expect(same.isUpToDate)

        // A point moved, same version: changed, but nothing to fetch.
        var moved = Self.points
        moved[0].triggerRadiusMeters = 45
        let edited = ScriptedSource(detail: Self.detail, points: moved, manifests: [Self.manifest(url)], script: [])
        let pointsPlan = try await TourDownloader(store: store, source: edited, audioCheck: { _ in nil })
            .plan(tourID: "t1", slug: "scripted", isProtected: false, service: "test", languages: ["en"])
        #expect(pointsPlan.changedLanguages == ["en"])
        #expect(pointsPlan.filesToFetch == 0)

        // A file of another size, same version: changed, and that file is fetched.
        let resized = ScriptedSource(
            detail: Self.detail, points: Self.points,
            manifests: [Self.manifest(url, size: 9_000)], script: [])
        let filePlan = try await TourDownloader(store: store, source: resized, audioCheck: { _ in nil })
            .plan(tourID: "t1", slug: "scripted", isProtected: false, service: "test", languages: ["en"])
        #expect(filePlan.changedLanguages == ["en"])
        #expect(filePlan.filesToFetch == 1)
    }

    /// A file the service declares empty is still asked for: the declared size is checked against
    /// the host's answer, as for any other size. It was installed as an empty blob without a
    /// request, and the narration went silent with the download reported complete.
    @Test func aFileDeclaredEmptyIsAskedForAndItsRealSizeIsNamed() async throws {
        let (store, folder) = try store()
        _ = folder
        let source = ScriptedSource(
            detail: Self.detail, points: Self.points,
            manifests: [Self.manifest("https://media.example.org/1.mp3", size: 0)],
            script: [Self.whole, Self.whole])
        do {
            try await Self.install(source, into: store)
            Issue.record("a file declared empty was installed after \(source.requests.count) requests")
        } catch {
            #expect(error.kind == .badData)
            #expect(error.message.contains("the service declares 0 bytes but sends"), "\(error.message)")
        }
        #expect(source.requests.count == 2, "\(source.requests.count) requests")
        #expect(try store.installedTours().isEmpty)

        // A host that agrees (an empty answer) is believed: one request, and the file is in.
        let empty: @Sendable (URL, HTTPHeaderFields) -> HTTPResponse = { url, _ in
            HTTPResponse(status: 200, headers: ["Content-Length": "0"], body: Self.body([][...]), url: url)
        }
        let agreeing = ScriptedSource(
            detail: Self.detail, points: Self.points,
            manifests: [Self.manifest("https://media.example.org/1.mp3", size: 0)], script: [empty])
        try await Self.install(agreeing, into: store)
        #expect(agreeing.requests.count == 1)
        #expect(try store.installedTours().count == 1)
    }

    /// A catalog SQLite cannot open for writing (a full disk, a read-only home: its shared-memory
    /// file cannot be made) is still read: the walker's installed tours stay listed and walkable
    /// offline. Every reader failed with "cannot be opened as the tour catalog (disk I/O error)".
    /// Here the shared-memory file's name is taken by a folder, which fails the same way.
    @Test func anInstalledTourIsReadWhenTheCatalogCannotBeWritten() async throws {
        let folder = try TemporaryDirectory(prefix: "walkscape-store-unit")
        let location = StoreLocation(dataFolder: folder.url)
        do {
            let store = try TourStore.open(location)
            let source = Self.oneFile([Self.whole])
            try await Self.install(source, into: store)
        }
        let shm = location.catalog.path + "-shm"
        try? FileManager.default.removeItem(atPath: shm)
        try FileManager.default.createDirectory(atPath: shm, withIntermediateDirectories: false)
        let store = try #require(try TourStore.openIfPresent(location))
        let tours = try store.installedTours()
        #expect(tours.map(\.slug) == ["scripted"])
        #expect(tours.first?.languages.first?.files.count == 1)
        // Writing still needs a catalog that can be written, and says why not.
        #expect(throws: StoreError.self) { try TourStore.open(location) }
    }

    /// `verify` takes no lock, so a writer may remove what it is checking: a blob removed (its
    /// rows, then its file) after verify read the catalog is no damage. It failed with "cannot
    /// read .../media/<sha>: No such file or directory" (exit 1) beside `remove` or `update`.
    @Test func verifyBesideAWriterThatRemovesBlobsFindsNoDamage() async throws {
        let (store, folder) = try store()
        _ = folder
        for (id, slug, bytes) in [("t1", "one", Self.bytes), ("t2", "two", Self.bytes.reversed())] {
            let answer: @Sendable (URL, HTTPHeaderFields) -> HTTPResponse = { url, _ in
                HTTPResponse(
                    status: 200, headers: ["Content-Length": "\(bytes.count)", "ETag": "\"v1\""],
                    body: Self.body(bytes[...]), url: url)
            }
            var manifest = Self.manifest("https://media.example.org/\(id).mp3")
            manifest.tourID = id
            let source = ScriptedSource(
                detail: TourDetail(id: id, slug: slug, title: slug, languages: ["en"]), points: Self.points,
                manifests: [manifest], script: [answer])
            try await Self.install(source, into: store, tourID: id, slug: slug)
        }
        // Once the first blob is checked, both tours are removed and their blobs collected.
        let removed = Mutex(false)
        let report = try store.verify(tourIDs: nil) { _ in
            guard !removed.withLock({ $0 }) else { return }
            removed.withLock { $0 = true }
            _ = try? store.remove(tourID: "t1", languages: nil)
            _ = try? store.remove(tourID: "t2", languages: nil)
            _ = try? store.collectGarbage(partials: false)
        }
        #expect(removed.withLock { $0 })
        #expect(report.isClean, "\(report.problems)")
    }

    @Test func aFileSignedTwiceIsOneFileAndAPortChangeDoesNotMakeItAnother() {
        let a = FileIdentity(
            url:
                "https://media.example.org/t/en/01.mp3?X-Amz-Date=20260501T090000Z&X-Amz-Expires=86400&X-Amz-Signature=aa",
            size: 10)
        let b = FileIdentity(
            url:
                "https://MEDIA.example.org:8443/t/en/01.mp3?X-Amz-Date=20260502T090000Z&X-Amz-Expires=86400&X-Amz-Signature=bb",
            size: 10)
        #expect(a == b)
        #expect(a.partName == b.partName)
        #expect(a != FileIdentity(url: "https://media.example.org/t/en/01.mp3", size: 11))
        #expect(a != FileIdentity(url: "https://media.example.org/t/it/01.mp3", size: 10))
        #expect(FileIdentity(url: "http://h/media/t/a%20b.mp3?x=1", size: 1).fileName == "a b.mp3")
    }

    @Test func aContentRangeIsReadWithAndWithoutItsTotal() {
        #expect(ContentRange("bytes 100-199/1000") == ContentRange("bytes 100-199/1000"))
        #expect(ContentRange("bytes 100-199/1000")?.start == 100)
        #expect(ContentRange("bytes 100-199/1000")?.total == 1000)
        #expect(ContentRange("bytes 100-199/*")?.total == nil)
        #expect(ContentRange("bytes 100-199/*") != nil)
        #expect(ContentRange("bytes 200-100/1000") == nil)
        // A total that is no size, or bytes past it, is no range (it was printed as "sends -1 bytes").
        #expect(ContentRange("bytes 0-99/-1") == nil)
        #expect(ContentRange("bytes 0-99/50") == nil)
        #expect(ContentRange("bytes 0-99/99") == nil)
        #expect(ContentRange("bytes 0-99/100") != nil)
        #expect(ContentRange("bytes 9223372036854775807-9223372036854775807/9223372036854775807") == nil)
        #expect(ContentRange("items 0-1/2") == nil)
        #expect(ContentRange(nil) == nil)
    }
}

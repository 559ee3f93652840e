import Crypto
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A walker's machine and the service: a real `walkscape-server` over tour folders this test owns
/// (copied or generated, so it can republish them), a private home, and the real `walkscape`.
final class StoreHarness: @unchecked Sendable {
    let scratch: TemporaryDirectory
    let home: TemporaryDirectory
    let tours: URL
    private(set) var server: ServerProcess

    static let demoID = "3b6f7a0e-2c55-4c1e-8f4a-7d2f5e0c9a10"
    static let demoSlug = "florence-duomo-pitti"
    static let demoPointIDs = (1...5).map { "7c1e0b52-5d0a-4f3e-9a61-0d1f0000000\($0)" }

    /// Serves `folders` (written into a parent folder of this harness) with `options`; the log at
    /// info level, so each media request is a line a test can count. The folders are checked for
    /// changes at each request (reload interval 0): a republished file is served at once.
    init(
        options: ServerProcess.Options = ServerProcess.Options(), home: TemporaryDirectory? = nil,
        folders: (URL) throws -> Void
    ) async throws {
        scratch = try TemporaryDirectory(prefix: "walkscape-store")
        self.home = try home ?? TemporaryDirectory(prefix: "walkscape-store-home")
        tours = scratch.url.appendingPathComponent("tours", isDirectory: true)
        try FileManager.default.createDirectory(at: tours, withIntermediateDirectories: true)
        try folders(tours)
        server = try await ServerProcess.start(Self.serving(tours, options))
    }

    /// Serves `fixtures`' folders.
    convenience init(options: ServerProcess.Options = ServerProcess.Options(), fixtures: [TourFixture]) async throws {
        try await self.init(options: options) { tours in
            for fixture in fixtures { try fixture.write(in: tours) }
        }
    }

    /// `options` on `tours`, logged at info level, the folders checked at each request.
    private static func serving(_ tours: URL, _ options: ServerProcess.Options) -> ServerProcess.Options {
        var options = options
        options.tours = [tours]
        options.logLevel = "info"
        options.reloadInterval = options.reloadInterval ?? 0
        return options
    }

    /// A copy of the demo tour (real MP3s), optionally with its narration replaced by short tones
    /// (`ShortDemo`).
    static func copyDemo(into parent: URL, shortNarration: Bool = false) throws -> URL {
        let root = parent.appendingPathComponent("demo")
        if shortNarration { return try ShortDemo.copy(to: root) }
        try FileManager.default.copyItem(at: TestPaths.demoTour, to: root)
        return root
    }

    /// Restarts the server with other options on the same folders and data.
    func restartServer(_ options: ServerProcess.Options) async throws {
        await server.stop()
        server = try await ServerProcess.start(Self.serving(tours, options), data: server.dataDirectory)
    }

    /// `walkscape ARGS` against the server (or `apiURL`), with this harness's home.
    @discardableResult
    func run(
        _ arguments: [String], apiURL: String? = nil, environment: [String: String] = [:],
        timeout: Double = 120
    ) throws -> ProcessResult {
        var env = environment
        env["WALKSCAPE_API_URL"] = apiURL ?? server.baseURL
        return try runWalkscape(arguments, home: home, environment: env, timeout: timeout)
    }

    /// Runs a command that must succeed.
    @discardableResult
    func succeed(_ arguments: [String], apiURL: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> ProcessResult
    {
        let result = try run(arguments, apiURL: apiURL)
        #expect(
            result.status == 0, "walkscape \(arguments.joined(separator: " ")): \(result.stderr)\(result.stdout)",
            sourceLocation: sourceLocation)
        return result
    }

    /// `walkscape ARGS` as a child the test can signal.
    func start(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(
            TestPaths.walkscape, arguments + ["--home", home.path],
            environment: ["WALKSCAPE_API_URL": server.baseURL, "NO_COLOR": "1"], separateErrorOutput: true)
    }

    // MARK: The store, looked at from outside

    var media: URL { home.file("data/media") }
    var partial: URL { home.file("data/partial") }

    /// The blob files and their sizes.
    func blobs() -> [String: Int] {
        var found: [String: Int] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: media.path)) ?? [] {
            let size =
                (try? FileManager.default.attributesOfItem(atPath: media.appendingPathComponent(name).path)[.size]
                    as? Int) ?? -1
            found[name] = size
        }
        return found
    }

    /// Every blob's name is the SHA-256 of its bytes.
    func expectBlobsHashRight(sourceLocation: SourceLocation = #_sourceLocation) throws {
        for name in blobs().keys {
            let data = try Data(contentsOf: media.appendingPathComponent(name))
            #expect(Self.sha256(data) == name, "blob \(name) holds other bytes", sourceLocation: sourceLocation)
        }
    }

    /// `verify` passes.
    func expectVerifyClean(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try run(["verify"])
        #expect(result.status == 0, "verify: \(result.stdout)\(result.stderr)", sourceLocation: sourceLocation)
    }

    /// The SHA-256 of a served file, to find it among the blobs.
    func servedHash(_ relative: String, tour: String) throws -> String {
        Self.sha256(try Data(contentsOf: tours.appendingPathComponent(tour).appendingPathComponent(relative)))
    }

    static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// Media GETs the server answered so far (its access log), optionally for paths ending so.
    func mediaRequests(endingWith suffix: String = "") -> [String] {
        server.log.split(separator: "\n").map(String.init).filter { line in
            guard let range = line.range(of: "GET /media/") else { return false }
            let path = line[range.upperBound...].split(separator: " ").first.map(String.init) ?? ""
            return path.hasSuffix(suffix)
        }
    }

    /// `tours --installed --json`.
    func installed() throws -> [[String: Any]] {
        let result = try run(["tours", "--installed", "--json"])
        return (try JSONSerialization.jsonObject(with: result.stdoutData) as? [[String: Any]]) ?? []
    }

    /// `--json` lines of a download.
    static func jsonLines(_ result: ProcessResult) -> [[String: Any]] { jsonLines(result.stdout) }

    /// The JSON objects among `text`'s lines (a running child's output so far, say).
    static func jsonLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The analytics events recorded: those the service received (each command sends its own as
    /// it ends), then those still kept in the outbox (for a service that is gone, say).
    func recordedEvents() -> [[String: Any]] {
        let answer = (try? server.admin(["events", "--json"])).flatMap {
            try? JSONSerialization.jsonObject(with: $0.stdoutData)
        }
        let received = ((answer as? [String: Any])?["events"] as? [[String: Any]]) ?? []
        return received.filter { $0["duplicate"] as? Bool != true } + KeptEvents.read(home)
    }

    /// Waits until the server serves a manifest other than `old` (it re-reads folders on change).
    func waitForRepublish(tourID: String, language: String, from old: String, timeout: Double = 10) async throws -> Bool
    {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try manifestVersion(tourID: tourID, language: language) != old { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    func manifestVersion(tourID: String, language: String) throws -> String {
        let body = try RawHTTP.get(port: server.port, "/tours/\(tourID)/manifest?language=\(language)").body
        let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        return "\(object?["version"] ?? "")"
    }
}

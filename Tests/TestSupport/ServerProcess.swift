import Foundation
import TourModel

#if canImport(Glibc)
    import Glibc
#endif

/// A real `walkscape-server` on an ephemeral loopback port, for tests that need the API: started with
/// `--port 0` and a private data folder, its base URL read from the first line of its stdout, stopped
/// with SIGTERM by `stop()` (and killed when the value goes away, whatever happened).
///
/// ```swift
/// let server = try await ServerProcess.start(.init(tours: [TestPaths.demoTour], tokenTTL: 2))
/// try server.addUser("ada@example.org", password: "correct horse")
/// // ... requests against server.baseURL ...
/// let events = try server.events()
/// ```
public final class ServerProcess: @unchecked Sendable {
    /// How the server is started. Everything off by default, as the binary's own defaults, except a
    /// low bcrypt cost (hashing dominates an auth round trip) and quiet logs.
    public struct Options: Sendable {
        public var tours: [URL]
        public var dialect: String?
        public var tokenTTL: Int?
        public var refreshTTL: Int?
        public var urlTTL: Int?
        public var publicURL: String?
        public var host: String?
        public var faultRate: Double?
        public var resetRate: Double?
        public var latencyMilliseconds: Int?
        public var throttleBytesPerSecond: Int?
        public var rateLimit: Int?
        public var misdeclareSize = false
        public var faultSeed: UInt64?
        public var bcryptCost = 4
        /// Seconds between checks of the tour folders for edits (the binary's default is 1).
        public var reloadInterval: Double?
        public var logLevel = "warning"
        /// Anything else, appended as is.
        public var extraArguments: [String] = []
        /// The server's limit on open files (soft and hard, set by prlimit before it starts).
        public var descriptorLimit: Int?

        public init(
            tours: [URL] = [TestPaths.demoTour], dialect: String? = nil, tokenTTL: Int? = nil,
            refreshTTL: Int? = nil, urlTTL: Int? = nil, publicURL: String? = nil, host: String? = nil,
            faultRate: Double? = nil, resetRate: Double? = nil, latencyMilliseconds: Int? = nil,
            throttleBytesPerSecond: Int? = nil, rateLimit: Int? = nil, misdeclareSize: Bool = false,
            faultSeed: UInt64? = nil, bcryptCost: Int = 4, reloadInterval: Double? = nil,
            logLevel: String = "warning", extraArguments: [String] = []
        ) {
            self.tours = tours
            self.dialect = dialect
            self.tokenTTL = tokenTTL
            self.refreshTTL = refreshTTL
            self.urlTTL = urlTTL
            self.publicURL = publicURL
            self.host = host
            self.faultRate = faultRate
            self.resetRate = resetRate
            self.latencyMilliseconds = latencyMilliseconds
            self.throttleBytesPerSecond = throttleBytesPerSecond
            self.rateLimit = rateLimit
            self.misdeclareSize = misdeclareSize
            self.faultSeed = faultSeed
            self.bcryptCost = bcryptCost
            self.reloadInterval = reloadInterval
            self.logLevel = logLevel
            self.extraArguments = extraArguments
        }

        public var arguments: [String] {
            var a = tours.map(\.path) + ["--port", "0", "--bcrypt-cost", String(bcryptCost), "--log-level", logLevel]
            func add(_ flag: String, _ value: (some CustomStringConvertible)?) {
                if let value { a += [flag, value.description] }
            }
            add("--dialect", dialect)
            add("--token-ttl", tokenTTL)
            add("--refresh-ttl", refreshTTL)
            add("--url-ttl", urlTTL)
            add("--public-url", publicURL)
            add("--host", host)
            add("--fault-rate", faultRate)
            add("--reset-rate", resetRate)
            add("--latency", latencyMilliseconds)
            add("--throttle", throttleBytesPerSecond)
            add("--rate-limit", rateLimit)
            add("--fault-seed", faultSeed)
            add("--reload-interval", reloadInterval)
            if misdeclareSize { a.append("--misdeclare-size") }
            return a + extraArguments
        }
    }

    public struct StartFailure: Error, CustomStringConvertible {
        public var description: String
    }

    /// `http://127.0.0.1:PORT` (no trailing slash).
    public let baseURL: String
    public let port: Int
    /// The server's data folder (users, vouchers, events, secret); admin commands work on it.
    public let dataDirectory: URL
    public let options: Options
    private let child: ChildProcess
    /// Keeps a data folder this helper made alive as long as the server.
    private let ownedData: TemporaryDirectory?

    private init(
        child: ChildProcess, baseURL: String, port: Int, dataDirectory: URL, ownedData: TemporaryDirectory?,
        options: Options
    ) {
        self.child = child
        self.baseURL = baseURL
        self.port = port
        self.dataDirectory = dataDirectory
        self.ownedData = ownedData
        self.options = options
    }

    /// Starts a server and waits (up to `timeout` seconds) for its base URL. `data`: an existing data
    /// folder to use (say, to restart on the same accounts); nil makes a temporary one.
    public static func start(_ options: Options = Options(), data: URL? = nil, timeout: Double = 30) async throws
        -> ServerProcess
    {
        let owned = data == nil ? try TemporaryDirectory(prefix: "walkscape-server-data") : nil
        let dataDirectory = data ?? owned!.url
        let arguments = options.arguments + ["--data", dataDirectory.path]
        // prlimit sets the limit and then becomes the server (exec): the pid is the server's.
        let child =
            try options.descriptorLimit.map { limit in
                try ChildProcess(
                    URL(fileURLWithPath: "/usr/bin/prlimit"),
                    ["--nofile=\(limit):\(limit)", "--", TestPaths.walkscapeServer.path] + arguments,
                    separateErrorOutput: true)
            }
            ?? ChildProcess(TestPaths.walkscapeServer, arguments, separateErrorOutput: true)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let out = child.output
            if let newline = out.firstIndex(of: "\n") {
                let base = String(out[..<newline])
                guard let port = URLComponents(string: base)?.port else {
                    throw StartFailure(
                        description:
                            "walkscape-server printed \"\(base)\", not a base URL; stderr: \(child.errorOutput)")
                }
                return ServerProcess(
                    child: child, baseURL: base, port: port, dataDirectory: dataDirectory,
                    ownedData: owned, options: options)
            }
            if !child.isRunning {
                _ = await child.wait(timeout: 1)
                throw StartFailure(description: "walkscape-server exited before listening: \(child.errorOutput)")
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        throw StartFailure(
            description: "walkscape-server did not print its base URL within \(timeout) s: \(child.errorOutput)")
    }

    deinit {
        if child.isRunning { child.signal(SIGKILL) }
    }

    public var pid: pid_t { child.pid }
    public var isRunning: Bool { child.isRunning }
    /// The server's log so far (stderr).
    public var log: String { child.errorOutput }

    /// A URL under the server: `url("/tours")`.
    public func url(_ path: String) -> String { baseURL + path }

    public func signal(_ number: Int32) { child.signal(number) }

    /// SIGTERM, then waits for a graceful exit; SIGKILL after `timeout`. The exit code, or nil if killed.
    @discardableResult
    public func stop(timeout: Double = 10) async -> Int32? {
        guard child.isRunning else { return await child.wait(timeout: 1) }
        child.signal(SIGTERM)
        if let code = await child.wait(timeout: timeout) { return code }
        child.signal(SIGKILL)
        _ = await child.wait(timeout: 5)
        return nil
    }

    // MARK: Admin commands, run as subprocesses on the same data folder

    /// Runs `walkscape-server ARGS --data DIR`; throws with its stderr when it fails.
    @discardableResult
    public func admin(_ arguments: [String], stdin: Data? = nil) throws -> ProcessResult {
        try Self.admin(arguments, data: dataDirectory, stdin: stdin)
    }

    @discardableResult
    public static func admin(_ arguments: [String], data: URL, stdin: Data? = nil) throws -> ProcessResult {
        let result = try run(TestPaths.walkscapeServer, arguments + ["--data", data.path], stdin: stdin)
        guard result.status == 0 else {
            throw StartFailure(
                description:
                    "walkscape-server \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
        return result
    }

    public func addUser(_ email: String, password: String, name: String? = nil, language: String? = nil) throws {
        var args = ["user", "add", email, "--password", password, "--bcrypt-cost", String(options.bcryptCost)]
        if let name { args += ["--name", name] }
        if let language { args += ["--language", language] }
        try admin(args)
    }

    /// `validUntil`: `YYYY-MM-DD` or an ISO-8601 time with a zone. `tour` nil: not tied to a tour.
    public func addVoucher(_ code: String, tour: String?, maxUses: Int? = nil, validUntil: String? = nil) throws {
        var args = ["voucher", "add", code]
        if let tour { args += ["--tour", tour] }
        if let maxUses { args += ["--max-uses", String(maxUses)] }
        if let validUntil { args += ["--valid-until", validUntil] }
        try admin(args)
    }

    /// What `events --json` says the server received.
    public func events() throws -> ServerEvents {
        try WalkscapeJSON.decoder().decode(ServerEvents.self, from: admin(["events", "--json"]).stdoutData)
    }

    /// `stats --json`: registrations, logins, refreshes, refreshesRefused, users, events...
    public func stats() throws -> [String: Int] {
        try JSONDecoder().decode([String: Int].self, from: admin(["stats", "--json"]).stdoutData)
    }
}

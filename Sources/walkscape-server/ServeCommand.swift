import ArgumentParser
import Foundation
import Logging
import TourModel
import WalkscapeServer

extension APIDialect: ExpressibleByArgument {}

/// `walkscape-server [serve] TOURS...`: the API over tour folders.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve tour folders (the default command).",
        discussion: """
            Each TOURS argument is a tour folder (with a tour.json) or a folder of tour folders. Edits to
            the folders are picked up within a second (or at once on SIGHUP); a broken edit keeps the last
            good version served and is logged. SIGTERM or SIGINT stops the server gracefully.

            Fault switches (all off by default) make the server misbehave the way networks and services do;
            /health is exempt from all of them. See docs/server.md.

            Examples:
              walkscape-server tours/demo --port 0 --data /tmp/ws-data
              walkscape-server tours/ --fault-rate 0.2 --reset-rate 0.1 --fault-seed 7
              walkscape-server tours/ --throttle 200000 --url-ttl 60 --token-ttl 30
            """
    )

    @Argument(help: ArgumentHelp("Tour folders, or folders of tour folders.", valueName: "tours"))
    var tours: [String] = []

    @Option(help: "Address to listen on (0.0.0.0 for the LAN).")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free one (printed as the first line of stdout).")
    var port = 8080

    @OptionGroup var data: DataOption

    @Option(
        name: .customLong("public-url"),
        help: ArgumentHelp(
            "Base URL signed into media links (default: the address each client used).",
            valueName: "url"))
    var publicURL: String?

    @Option(help: "JSON shapes: live (the running service, docs/api-contract.md) or guide (the published guide).")
    var dialect: APIDialect = .live

    @Option(name: .customLong("token-ttl"), help: ArgumentHelp("Access token lifetime.", valueName: "seconds"))
    var tokenTTL = 900

    @Option(name: .customLong("refresh-ttl"), help: ArgumentHelp("Refresh token lifetime.", valueName: "seconds"))
    var refreshTTL = 7 * 24 * 3600

    @Option(name: .customLong("url-ttl"), help: ArgumentHelp("Signed media URL lifetime.", valueName: "seconds"))
    var urlTTL = 24 * 3600

    @Option(
        name: .customLong("fault-rate"), help: ArgumentHelp("Answer this share of requests with a 5xx.", valueName: "p")
    )
    var faultRate = 0.0

    @Option(
        name: .customLong("reset-rate"),
        help: ArgumentHelp("Close the connection part-way through this share of responses.", valueName: "p"))
    var resetRate = 0.0

    @Option(help: ArgumentHelp("Delay every request by this much.", valueName: "ms"))
    var latency = 0

    @Option(help: ArgumentHelp("Pace media bodies to this rate.", valueName: "bytes-per-second"))
    var throttle = 0

    @Option(
        name: .customLong("rate-limit"),
        help: ArgumentHelp("Answer 429 with Retry-After beyond this many requests per second.", valueName: "n"))
    var rateLimit = 0

    @Flag(
        name: .customLong("misdeclare-size"),
        help: "Declare manifest sizes \(FaultPlan.misdeclaredBytes) bytes off (alternately more and fewer).")
    var misdeclareSize = false

    @Option(name: .customLong("fault-seed"), help: ArgumentHelp("Seed of the fault decisions.", valueName: "n"))
    var faultSeed: UInt64 = 1

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    @Option(name: .customLong("bcrypt-cost"), help: .hidden)
    var bcryptCost = 10

    @Option(name: .customLong("reload-interval"), help: .hidden)
    var reloadInterval = 1.0

    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp(
            "Close a connection that sends nothing for this many seconds (no request, or one that stops half-way; never while answering).",
            valueName: "s"))
    var idleTimeout = 30.0

    @Option(
        name: .customLong("guesses-per-minute"),
        help: ArgumentHelp(
            "Logins, registrations and voucher redemptions one client may try a minute, each; more get 429 (0: no limit).",
            valueName: "n"))
    var guessesPerMinute = 60

    func validate() throws {
        guard !tours.isEmpty else {
            throw ValidationError("name at least one tour folder (or a folder of tour folders)")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be within 0...65535") }
        for (name, value) in [("--fault-rate", faultRate), ("--reset-rate", resetRate)] where !(0...1).contains(value) {
            throw ValidationError("\(name) must be a probability within 0...1")
        }
        for (name, value) in [("--token-ttl", tokenTTL), ("--refresh-ttl", refreshTTL), ("--url-ttl", urlTTL)]
        where value <= 0 {
            throw ValidationError("\(name) must be a positive number of seconds")
        }
        for (name, value) in [("--latency", latency), ("--throttle", throttle), ("--rate-limit", rateLimit)]
        where value < 0 {
            throw ValidationError("\(name) must not be negative")
        }
        guard (4...31).contains(bcryptCost) else { throw ValidationError("--bcrypt-cost must be within 4...31") }
        guard reloadInterval >= 0 else { throw ValidationError("--reload-interval must not be negative") }
        guard guessesPerMinute >= 0 else { throw ValidationError("--guesses-per-minute must not be negative") }
        guard idleTimeout >= 0.1, idleTimeout <= 86_400 else {
            throw ValidationError("--idle-timeout must be within 0.1...86400 seconds")
        }
        if let publicURL {
            guard let url = URLComponents(string: publicURL), let scheme = url.scheme,
                ["http", "https"].contains(scheme),
                url.host?.isEmpty == false, url.query == nil
            else {
                throw ValidationError("--public-url must be an http:// or https:// URL like http://192.168.1.20:8080")
            }
        }
    }

    /// The flags as the server's configuration (tests build an in-process server from the same).
    func configuration() -> ServerConfiguration {
        ServerConfiguration(
            tourPaths: tours.map { URL(fileURLWithPath: $0, isDirectory: true) }, host: host, port: port,
            dataDirectory: data.url, publicURL: publicURL, dialect: dialect, accessTokenTTL: tokenTTL,
            refreshTokenTTL: refreshTTL, mediaURLTTL: urlTTL, bcryptCost: bcryptCost, reloadInterval: reloadInterval,
            faults: FaultPlan(
                faultRate: faultRate, resetRate: resetRate, latencyMilliseconds: latency,
                throttleBytesPerSecond: throttle, rateLimitPerSecond: rateLimit,
                misdeclareSize: misdeclareSize, seed: faultSeed), idleTimeout: idleTimeout,
            guessesPerMinute: guessesPerMinute)
    }

    func run() async throws {
        let logger = ServerLogging.bootstrap(level: logLevel)
        AllocatorTuning.keepMediaChunksInTheHeap()
        try await WalkscapeServerApp.run(configuration(), logger: logger) { base in
            // The first line of stdout, flushed at once: tests and scripts wait for it.
            FileHandle.standardOutput.write(Data("\(base)\n".utf8))
        }
    }
}

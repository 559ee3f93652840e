import ArgumentParser
import Foundation
import Logging
import TourModel
import WalkscapeServer

#if canImport(Glibc)
    import Glibc
#endif

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

    @Argument(
        help: ArgumentHelp(
            "Tour folders, or folders of tour folders (default: the config file's tours lines).", valueName: "tours"))
    var tours: [String] = []

    @Option(help: "Address to listen on, 0.0.0.0 for the LAN (default: 127.0.0.1).")
    var host: String?

    @Option(
        parsing: .unconditional,
        help: "Port to listen on; 0 picks a free one, printed as the first line of stdout (default: 8080).")
    var port: Int?

    @OptionGroup var data: DataOption

    @Option(
        name: .customLong("secret-file"),
        help: ArgumentHelp(
            "The signing secret (hex) to use instead of the data folder's, which is made when missing; this one must exist.",
            valueName: "file"))
    var secretFile: String?

    @Option(
        name: .customLong("tls-certificate"),
        help: ArgumentHelp(
            "Serve HTTPS with this certificate (PEM, the chain after it); needs --tls-key.", valueName: "file"))
    var tlsCertificate: String?

    @Option(
        name: .customLong("tls-key"),
        help: ArgumentHelp("The private key (PEM) of --tls-certificate.", valueName: "file"))
    var tlsKey: String?

    @Option(
        name: .customLong("public-url"),
        help: ArgumentHelp(
            "Base URL signed into media links (default: the address each client used).",
            valueName: "url"))
    var publicURL: String?

    @Option(
        help:
            "JSON shapes: live (the running service, docs/api-contract.md) or guide (the published guide) (default: live)."
    )
    var dialect: APIDialect?

    @Option(
        name: .customLong("token-ttl"), parsing: .unconditional,
        help: ArgumentHelp("Access token lifetime (default: 900).", valueName: "seconds"))
    var tokenTTL: Int?

    @Option(
        name: .customLong("refresh-ttl"), parsing: .unconditional,
        help: ArgumentHelp("Refresh token lifetime (default: 604800).", valueName: "seconds"))
    var refreshTTL: Int?

    @Option(
        name: .customLong("url-ttl"), parsing: .unconditional,
        help: ArgumentHelp("Signed media URL lifetime (default: 86400).", valueName: "seconds"))
    var urlTTL: Int?

    @Option(
        name: .customLong("fault-rate"), parsing: .unconditional,
        help: ArgumentHelp("Answer this share of requests with a 5xx.", valueName: "p")
    )
    var faultRate = 0.0

    @Option(
        name: .customLong("reset-rate"), parsing: .unconditional,
        help: ArgumentHelp("Close the connection part-way through this share of responses.", valueName: "p"))
    var resetRate = 0.0

    @Option(parsing: .unconditional, help: ArgumentHelp("Delay every request by this much.", valueName: "ms"))
    var latency = 0

    @Option(
        parsing: .unconditional, help: ArgumentHelp("Pace media bodies to this rate.", valueName: "bytes-per-second"))
    var throttle = 0

    @Option(
        name: .customLong("rate-limit"), parsing: .unconditional,
        help: ArgumentHelp("Answer 429 with Retry-After beyond this many requests per second.", valueName: "n"))
    var rateLimit = 0

    @Flag(
        name: .customLong("misdeclare-size"),
        help: "Declare manifest sizes \(FaultPlan.misdeclaredBytes) bytes off (alternately more and fewer).")
    var misdeclareSize = false

    @Option(
        name: .customLong("fault-seed"), parsing: .unconditional,
        help: ArgumentHelp("Seed of the fault decisions.", valueName: "n"))
    var faultSeed: UInt64 = 1

    @Option(
        name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (default: info).")
    var logLevel: Logger.Level?

    @Option(name: .customLong("bcrypt-cost"), help: .hidden)
    var bcryptCost = 10

    @Option(name: .customLong("reload-interval"), help: .hidden)
    var reloadInterval = 1.0

    @Option(
        name: .customLong("idle-timeout"), parsing: .unconditional,
        help: ArgumentHelp(
            "Close a connection that sends nothing for this many seconds (no request, or one that stops half-way), and one whose client takes nothing of its answers for four times as long (default: 30).",
            valueName: "s"))
    var idleTimeout: Double?

    @Option(
        name: .customLong("max-downloads"), parsing: .unconditional,
        help: ArgumentHelp(
            "Media files streamed at once; more get 503 SlowDown with Retry-After (lowered to what the open-file limit allows) (default: 512).",
            valueName: "n"))
    var maxDownloads: Int?

    @Option(
        name: .customLong("guesses-per-minute"), parsing: .unconditional,
        help: ArgumentHelp(
            "Logins, registrations and voucher redemptions one client may try a minute, each; more get 429 (0: no limit) (default: 60).",
            valueName: "n"))
    var guessesPerMinute: Int?

    /// What only flags set: the fault switches and the tests' knobs. The rest is checked once
    /// flags and the config file are merged (configuration()).
    func validate() throws {
        for (name, value) in [("--fault-rate", faultRate), ("--reset-rate", resetRate)] where !(0...1).contains(value) {
            throw ValidationError("\(name) must be a probability within 0...1")
        }
        for (name, value) in [("--latency", latency), ("--throttle", throttle), ("--rate-limit", rateLimit)]
        where value < 0 {
            throw ValidationError("\(name) must not be negative")
        }
        // A stop (SIGTERM) lets the requests in flight finish, each after this delay.
        guard latency <= Self.longestLatency else {
            throw ValidationError("--latency must be within 0...\(Self.longestLatency) ms")
        }
        guard (4...31).contains(bcryptCost) else { throw ValidationError("--bcrypt-cost must be within 4...31") }
        guard reloadInterval >= 0 else { throw ValidationError("--reload-interval must not be negative") }
    }

    /// The flags over the config file over the defaults, checked, as the server's configuration
    /// (tests build an in-process server from the same). A bad value names where it came from.
    func configuration() throws(ServerError) -> ServerConfiguration { try configuration(file: data.configFile()) }

    /// The same, from a settings file already read (run() reads it once for this and the log level).
    func configuration(file: ServerConfigFile?) throws(ServerError) -> ServerConfiguration {
        var merged = MergedSettings(file: file)
        let tourPaths = tours.isEmpty ? file?.tours ?? [] : tours
        guard !tourPaths.isEmpty else {
            throw ServerError(
                .usage,
                "name at least one tour folder (or a folder of tour folders), as an argument or tours = in --config")
        }
        let host = try merged.pick(host, "host", "127.0.0.1") { $0.isEmpty ? nil : $0 }
        try merged.check("host", Self.isHost(host), "must be an IP address or a host name (no port)")
        let port = try merged.pick(port, "port", 8080) { Int($0) }
        try merged.check("port", (0...65535).contains(port), "must be within 0...65535")
        let dialect = try merged.pick(dialect, "dialect", APIDialect.live) { APIDialect(rawValue: $0) }
        let tokenTTL = try merged.pick(tokenTTL, "token-ttl", 900) { Int($0) }
        let refreshTTL = try merged.pick(refreshTTL, "refresh-ttl", 7 * 24 * 3600) { Int($0) }
        let urlTTL = try merged.pick(urlTTL, "url-ttl", 24 * 3600) { Int($0) }
        // At most ten years: a token or link that outlives that has an expiry no client can show.
        for (key, value) in [("token-ttl", tokenTTL), ("refresh-ttl", refreshTTL), ("url-ttl", urlTTL)] {
            try merged.check(
                key, (1...Self.longestTTL).contains(value), "must be within 1...\(Self.longestTTL) seconds")
        }
        let idleTimeout = try merged.pick(idleTimeout, "idle-timeout", 30.0) { Double($0) }
        try merged.check(
            "idle-timeout", idleTimeout >= 0.1 && idleTimeout <= 86_400, "must be within 0.1...86400 seconds")
        let maxDownloads = try merged.pick(maxDownloads, "max-downloads", ServerConfiguration.defaultMaxDownloads) {
            Int($0)
        }
        try merged.check("max-downloads", (1...1_000_000).contains(maxDownloads), "must be within 1...1000000")
        let guesses = try merged.pick(guessesPerMinute, "guesses-per-minute", 60) { Int($0) }
        try merged.check("guesses-per-minute", guesses >= 0, "must not be negative")
        let publicURL = try merged.pick(publicURL.map { Optional($0) }, "public-url", nil) { Optional($0) }
        if let publicURL {
            let good =
                URLComponents(string: publicURL).map { url in
                    url.scheme.map { ["http", "https"].contains($0) } == true && url.host?.isEmpty == false
                        && url.query == nil && url.url?.hasUsablePort == true
                } ?? false
            try merged.check("public-url", good, "must be an http:// or https:// URL like http://192.168.1.20:8080")
        }
        let secretFile = try merged.pick(secretFile.map { Optional($0) }, "secret-file", nil) { Optional($0) }
        let certificate = try merged.pick(tlsCertificate.map { Optional($0) }, "tls-certificate", nil) { Optional($0) }
        let key = try merged.pick(tlsKey.map { Optional($0) }, "tls-key", nil) { Optional($0) }
        try merged.check("tls-key", (certificate == nil) == (key == nil), "and tls-certificate go together")
        return ServerConfiguration(
            tourPaths: tourPaths.map { URL(fileURLWithPath: $0, isDirectory: true) }, host: host, port: port,
            dataDirectory: data.directory(file), publicURL: publicURL, dialect: dialect, accessTokenTTL: tokenTTL,
            refreshTokenTTL: refreshTTL, mediaURLTTL: urlTTL, bcryptCost: bcryptCost, reloadInterval: reloadInterval,
            faults: FaultPlan(
                faultRate: faultRate, resetRate: resetRate, latencyMilliseconds: latency,
                throttleBytesPerSecond: throttle, rateLimitPerSecond: rateLimit,
                misdeclareSize: misdeclareSize, seed: faultSeed), idleTimeout: idleTimeout,
            maxDownloads: maxDownloads, guessesPerMinute: guesses,
            secretFile: secretFile.map { URL(fileURLWithPath: $0) },
            tls: certificate.flatMap { certificate in
                key.map { (URL(fileURLWithPath: certificate), URL(fileURLWithPath: $0)) }
            })
    }

    /// Ten years, the longest a token or a media link may last.
    static let longestTTL = 315_360_000
    /// A minute, the longest added delay.
    static let longestLatency = 60_000

    /// An IPv4 or IPv6 address, or a host name (letters, digits, dots and hyphens): no port, no
    /// scheme, no space, which the socket layer would only refuse later in its own words.
    static func isHost(_ text: String) -> Bool {
        var address = in6_addr()
        if inet_pton(AF_INET, text, &address) == 1 || inet_pton(AF_INET6, text, &address) == 1 { return true }
        guard let first = text.first, first.isLetter || first.isNumber, text.count <= 253 else { return false }
        return text.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "." || $0 == "-" }
    }

    /// The log level: the flag, else the config file's, else info.
    func level() throws(ServerError) -> Logger.Level { try level(file: data.configFile()) }

    func level(file: ServerConfigFile?) throws(ServerError) -> Logger.Level {
        var merged = MergedSettings(file: file)
        return try merged.pick(logLevel, "log-level", .info) { Logger.Level(rawValue: $0) }
    }

    func run() async throws {
        let file = try data.configFile()
        let configuration = try configuration(file: file)
        let logger = ServerLogging.bootstrap(level: try level(file: file))
        AllocatorTuning.keepMediaChunksInTheHeap()
        try await WalkscapeServerApp.run(configuration, logger: logger) { base in
            // The first line of stdout, flushed at once: tests and scripts wait for it.
            FileHandle.standardOutput.write(Data("\(base)\n".utf8))
        }
    }
}

/// A flag, else the config file's value, else the default; remembers where each came from so a bad
/// value's message names it (`--port` or `server.conf line 3: port`).
private struct MergedSettings {
    let file: ServerConfigFile?
    var origins: [String: String] = [:]

    init(file: ServerConfigFile?) { self.file = file }

    mutating func pick<T>(_ flag: T?, _ key: String, _ fallback: T, parse: (String) -> T?) throws(ServerError) -> T {
        if let flag {
            origins[key] = "--\(key)"
            return flag
        }
        guard let file, let text = file[key] else { return fallback }
        origins[key] = "\(file.origin(key)): \(key)"
        guard let value = parse(text) else {
            throw ServerError(.usage, "\(file.origin(key)): \(key) '\(TerminalText.line(text))' is not a valid value")
        }
        return value
    }

    func check(_ key: String, _ ok: Bool, _ what: String) throws(ServerError) {
        guard !ok else { return }
        throw ServerError(.usage, "\(origins[key] ?? "--\(key)") \(what)")
    }
}

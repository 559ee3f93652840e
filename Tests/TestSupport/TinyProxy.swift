import Foundation

/// tinyproxy (Debian's, `make deps`) in the foreground on a free loopback port: a real HTTP proxy
/// for the proxy tests, whose log names each host it opened a connection to. Stopped when the
/// value is deinitialised.
public final class TinyProxy: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    public let port: Int
    /// `http://127.0.0.1:PORT`, as `https_proxy` names it.
    public var url: String { "http://127.0.0.1:\(port)" }
    private let folder: TemporaryDirectory
    private let process: ChildProcess

    /// `basicAuth`: the user name and password the proxy asks for (407 without them).
    public init(basicAuth: (user: String, password: String)? = nil) async throws {
        guard let tinyproxy = which("tinyproxy") else {
            throw TinyProxy.Failure("tinyproxy is not installed (make deps)")
        }
        folder = try TemporaryDirectory(prefix: "tinyproxy")
        port = try freeTCPPort()
        var config = """
            Port \(port)
            Listen 127.0.0.1
            Timeout 30
            MaxClients 20
            LogFile "\(folder.file("log").path)"
            LogLevel Connect
            DisableViaHeader Yes

            """
        if let basicAuth { config += "BasicAuth \(basicAuth.user) \(basicAuth.password)\n" }
        let file = try folder.write("tinyproxy.conf", config)
        process = try ChildProcess(tinyproxy, ["-d", "-c", file.path])
        for _ in 0..<500 where !isListening(port: port) {
            guard process.isRunning else { throw TinyProxy.Failure("tinyproxy did not start: \(process.output)") }
            try await Task.sleep(for: .milliseconds(10))
        }
        guard isListening(port: port) else { throw TinyProxy.Failure("tinyproxy does not listen on \(port)") }
    }

    /// What it logged so far: a `CONNECT` line per connection it opened, naming the host.
    public var log: String { (try? String(contentsOf: folder.file("log"), encoding: .utf8)) ?? "" }

    /// How many connections it opened to `host`.
    public func connections(to host: String) -> Int {
        log.split(separator: "\n").filter { $0.contains("Established connection to host \"\(host)\"") }.count
    }

    deinit { process.signal(SIGTERM) }
}

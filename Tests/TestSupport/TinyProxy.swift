import Foundation

/// tinyproxy (Debian's, `make deps`) in the foreground on a free loopback port: a real HTTP proxy
/// for the proxy tests, whose log names each host it opened a connection to. Stopped when the
/// value is deinitialised.
public final class TinyProxy: @unchecked Sendable {
    public let port: Int
    /// `http://127.0.0.1:PORT`, as `https_proxy` names it.
    public var url: String { "http://127.0.0.1:\(port)" }
    private let folder: TemporaryDirectory
    private let process: ChildProcess

    /// `basicAuth`: the user name and password the proxy asks for (407 without them).
    public init(basicAuth: (user: String, password: String)? = nil) async throws {
        guard let tinyproxy = which("tinyproxy") else {
            throw ServerProcess.StartFailure(description: "tinyproxy is not installed (make deps)")
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
        guard await process.listens(on: port) else {
            throw ServerProcess.StartFailure(description: "tinyproxy did not listen on \(port): \(process.output)")
        }
    }

    /// What it logged so far: a `CONNECT` line per connection it opened, naming the host.
    public var log: String { (try? String(contentsOf: folder.file("log"), encoding: .utf8)) ?? "" }

    /// How many connections it opened to `host`.
    public func connections(to host: String) -> Int {
        log.split(separator: "\n").filter { $0.contains("Established connection to host \"\(host)\"") }.count
    }

    deinit { process.signal(SIGTERM) }
}

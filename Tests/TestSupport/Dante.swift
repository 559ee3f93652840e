import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Dante's SOCKS server (Debian's `dante-server`, `make deps`) in the foreground on a free
/// loopback port: a real SOCKS5 proxy for the proxy tests, whose log names each connection it
/// opened. Stopped when the value is deinitialised. Dante refuses 0.0.0.0 as a destination, so
/// its tests name this machine by an address of another interface (`Dante.outsideAddress`).
public final class Dante: @unchecked Sendable {
    public let port: Int
    /// `socks5://127.0.0.1:PORT`, as `all_proxy` names it.
    public var url: String { "socks5://127.0.0.1:\(port)" }
    private let folder: TemporaryDirectory
    private let process: ChildProcess

    public init() async throws {
        // In /usr/sbin, which a user's PATH may not hold.
        let danted = which("danted") ?? URL(fileURLWithPath: "/usr/sbin/danted")
        guard FileManager.default.isExecutableFile(atPath: danted.path) else {
            throw ServerProcess.StartFailure(description: "danted is not installed (make deps)")
        }
        folder = try TemporaryDirectory(prefix: "danted")
        port = try freeTCPPort()
        // As root it must be told whom to run as (before its rules); otherwise it runs as whoever
        // starts it.
        let users = geteuid() == 0 ? "user.privileged: root\nuser.unprivileged: nobody\n" : ""
        let config = """
            logoutput: \(folder.file("log").path)
            internal: 127.0.0.1 port = \(port)
            external: lo
            clientmethod: none
            socksmethod: none
            \(users)
            client pass {
              from: 127.0.0.0/8 to: 0.0.0.0/0
              log: connect error
            }
            socks pass {
              from: 127.0.0.0/8 to: 0.0.0.0/0
              log: connect error
            }

            """
        let file = try folder.write("danted.conf", config)
        process = try ChildProcess(danted, ["-f", file.path, "-N", "1"])
        guard await process.listens(on: port) else {
            throw ServerProcess.StartFailure(description: "danted did not listen on \(port): \(process.output) \(log)")
        }
    }

    /// What it logged so far.
    public var log: String { (try? String(contentsOf: folder.file("log"), encoding: .utf8)) ?? "" }

    /// How many connections it opened to `host` (an IPv4 address): its log's connect lines end
    /// with the destination, `ADDRESS.PORT`.
    public func connections(to host: String) -> Int {
        log.split(separator: "\n").filter { line in
            guard line.contains("pass(1): tcp/connect ["), let destination = line.split(separator: " ").last,
                let dot = destination.lastIndex(of: ".")
            else { return false }
            return destination[..<dot] == host
        }.count
    }

    /// An IPv4 address of this machine on an interface other than loopback, if it has one.
    public static var outsideAddress: String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var entry = list
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            guard let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                current.pointee.ifa_flags & UInt32(IFF_LOOPBACK) == 0, current.pointee.ifa_flags & UInt32(IFF_UP) != 0
            else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            let found = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                var raw = inet.pointee.sin_addr
                return inet_ntop(AF_INET, &raw, &text, socklen_t(text.count)) != nil
            }
            if found { return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        }
        return nil
    }

    deinit { process.signal(SIGTERM) }
}

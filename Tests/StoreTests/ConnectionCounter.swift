import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback port that listens and counts who connects, answering nothing: an API URL pointed
/// at it proves a command made no network call at all (a closed port would only prove that a
/// call was not needed to succeed).
final class ConnectionCounter: @unchecked Sendable {
    let port: Int
    private let fd: Int32
    private let lock = NSLock()
    private var accepted = 0
    private var stopped = false

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        port = Int(UInt16(bigEndian: addr.sin_port))
        guard listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        Thread { [weak self] in
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { return }
                close(client)
                guard let self else { return }
                let done = self.lock.withLock { () -> Bool in
                    self.accepted += 1
                    return self.stopped
                }
                if done { return }
            }
        }.start()
    }

    var url: String { "http://127.0.0.1:\(port)" }
    var connections: Int { lock.withLock { accepted } }

    deinit {
        lock.withLock { stopped = true }
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}

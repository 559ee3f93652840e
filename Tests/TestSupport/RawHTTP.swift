import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// HTTP/1.1 over a plain socket: for requests a client library would tidy up (`..` and `%2e%2e` in
/// paths), for watching a connection being cut (exactly the bytes sent, every byte received), and
/// for a test to look at the server without going through the client under test.
public enum RawHTTP {
    public struct Answer: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data
        /// False when the server closed before sending `Content-Length` bytes.
        public var complete: Bool
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// A socket connected to 127.0.0.1:`port`, with `timeout` seconds on every receive, and a
    /// receive buffer of `receiveBuffer` bytes if given (set before connecting, so the window the
    /// server sees stays that small).
    /// `from`: the local address to connect from (another of loopback's, 127.0.0.2, is another
    /// client to the server).
    public static func connect(port: Int, timeout: Int, receiveBuffer: Int32? = nil, from: String? = nil) throws
        -> Int32
    {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        if let from {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(from)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                let code = POSIXErrorCode(rawValue: errno) ?? .EADDRNOTAVAIL
                close(fd)
                throw POSIXError(code)
            }
        }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = POSIXErrorCode(rawValue: errno) ?? .ECONNREFUSED
            close(fd)
            throw POSIXError(code)
        }
        return fd
    }

    /// Sends `request` as it is and reads the answer: until the server closes, the body its
    /// `Content-Length` announces has come (a server may keep even a closing connection open), or
    /// `timeout` seconds pass without a byte.
    public static func send(port: Int, _ request: String, timeout: Double = 20) throws -> Answer {
        let fd = try connect(port: port, timeout: Int(timeout))
        defer { close(fd) }
        try write(fd, request)
        return try receive(fd)
    }

    /// Writes all of `request` to `fd`.
    public static func write(_ fd: Int32, _ request: String) throws {
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            // MSG_NOSIGNAL: a server that reset the connection gives EPIPE, not a SIGPIPE that
            // ends the whole test process.
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw POSIXError(.EPIPE) }
            sent += n
        }
    }

    /// Reads one answer from `fd`: until the server closes, the body its `Content-Length` announces
    /// has come, or the socket's receive timeout passes without a byte.
    public static func receive(_ fd: Int32) throws -> Answer {
        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n > 0 {
                received.append(contentsOf: chunk[0..<n])
                if let answer = try? parse(received), answer.complete, answer.headers["content-length"] != nil {
                    return answer
                }
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        return try parse(received)
    }

    public static func parse(_ data: Data) throws -> Answer {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else {
            throw Failure(description: "no HTTP head in \(data.count) bytes")
        }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failure(description: "bad status line \(head[0])")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let body = Data(data[end.upperBound...])
        let expected = headers["content-length"].flatMap(Int.init) ?? body.count
        return Answer(status: status, headers: headers, body: body.prefix(expected), complete: body.count >= expected)
    }

    /// `GET path` with `Connection: close`.
    public static func get(port: Int, _ path: String, headers: [String] = []) throws -> Answer {
        let extra = headers.map { "\($0)\r\n" }.joined()
        return try send(
            port: port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(extra)Connection: close\r\n\r\n")
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The smallest HTTP/1.0 GET over a loopback socket, for a test to look at the server without
/// going through the client under test.
enum PlainHTTP {
    struct Failure: Error, CustomStringConvertible { var description: String }

    static func get(port: Int, path: String) throws -> Data {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect: \(errno)") }
        // A server may keep even an HTTP/1.0 connection open: read no longer than 10 s, and stop
        // at the end of the body its Content-Length announces.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress!, $0.count, 0) }
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n <= 0 { break }
            response.append(contentsOf: buffer[0..<n])
            if let split = response.range(of: Data("\r\n\r\n".utf8)),
                let length = contentLength(response[..<split.lowerBound]),
                response.count - split.upperBound >= length
            {
                break
            }
        }
        guard let split = response.range(of: Data("\r\n\r\n".utf8)) else {
            throw Failure(description: "no HTTP answer")
        }
        return Data(response[split.upperBound...])
    }

    private static func contentLength(_ head: Data) -> Int? {
        for line in String(decoding: head, as: UTF8.self).split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }
        }
        return nil
    }
}

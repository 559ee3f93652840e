import Foundation

#if canImport(Glibc)
    import Glibc
    import Positioning
#endif

/// A quick "is gpsd there, and which one" for `doctor`: connects, reads the VERSION banner gpsd
/// sends to every new client, and disconnects. Bounded by a timeout so a black-holed host never
/// hangs the check.
public enum GPSDProbe {
    public struct Version: Sendable, Hashable {
        public var release: String
        public var protocolVersion: String
    }

    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        case unresolvable(host: String)
        case refused(host: String, port: Int, reason: String)
        case timeout(host: String, port: Int)
        case notGPSD(host: String, port: Int)

        public var description: String {
            switch self {
            case .unresolvable(let host): "cannot resolve host '\(host)'"
            case .refused(let host, let port, let reason): "no gpsd at \(host):\(port) (\(reason))"
            case .timeout(let host, let port): "no answer from \(host):\(port) within the timeout"
            case .notGPSD(let host, let port): "\(host):\(port) answers, but not like gpsd (no VERSION banner)"
            }
        }
    }

    public static func probe(host: String, port: Int, timeout: Double = 2) -> Result<Version, Failure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            return .failure(.unresolvable(host: host))
        }
        defer { freeaddrinfo(list) }
        let deadline = Date().addingTimeInterval(timeout)
        var lastError = "connection refused"
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            cursor = info.pointee.ai_next
            let fd = socket(
                info.pointee.ai_family,
                info.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                info.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) != 0 {
                guard errno == EINPROGRESS else { lastError = String(cString: strerror(errno)); continue }
                guard wait(fd, events: Int16(POLLOUT), until: deadline) else {
                    return .failure(.timeout(host: host, port: port))
                }
                var soError: Int32 = 0
                var len = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &len)
                if soError != 0 { lastError = String(cString: strerror(soError)); continue }
            }
            var buffer = [UInt8](repeating: 0, count: 4096)
            var received: [UInt8] = []
            while received.count < 16_384 {
                guard wait(fd, events: Int16(POLLIN), until: deadline) else {
                    return .failure(.timeout(host: host, port: port))
                }
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { break }
                received.append(contentsOf: buffer[0..<n])
                if let version = parseBanner(received) { return .success(version) }
            }
            return .failure(.notGPSD(host: host, port: port))
        }
        return .failure(.refused(host: host, port: port, reason: lastError))
    }

    /// Finds `{"class":"VERSION","release":"3.22","proto_major":3,"proto_minor":14,...}` in what was read.
    static func parseBanner(_ bytes: [UInt8]) -> Version? {
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                object["class"] as? String == "VERSION", let release = object["release"] as? String
            else { continue }
            let major = (object["proto_major"] as? NSNumber)?.intValue ?? 0
            let minor = (object["proto_minor"] as? NSNumber)?.intValue ?? 0
            return Version(release: release, protocolVersion: "\(major).\(minor)")
        }
        return nil
    }

    private static func wait(_ fd: Int32, events: Int16, until deadline: Date) -> Bool {
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return false }
            var pfd = pollfd(fd: fd, events: events, revents: 0)
            let r = poll(&pfd, 1, Int32(remaining * 1000) + 1)
            if r > 0 { return true }
            if r == 0 { return false }
            if errno != EINTR { return false }
        }
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// This machine as a proxy test needs it named.
public enum ThisMachine {
    /// This machine's host name, when the name service resolves it and it is not a name walkscape
    /// takes for loopback (`localhost`): a host that requests are sent through a proxy for, which
    /// still reaches a server listening here on every interface. Nil when there is no such name.
    public static let name: String? = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return nil }
        let name = String(cString: buffer).lowercased()
        guard !name.isEmpty, name != "localhost", !name.hasSuffix(".localhost"),
            name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." })
        else { return nil }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &found) == 0, let found else { return nil }
        freeaddrinfo(found)
        return name
    }()
}

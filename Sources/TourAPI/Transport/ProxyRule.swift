import AsyncHTTPClient
import Foundation
import TourModel

#if canImport(Glibc)
    import Glibc
#endif

/// Which requests go through a proxy, read from the environment as curl reads it: `http_proxy`
/// for plain http (lower case only: `HTTP_PROXY` can be set by a CGI request's `Proxy:` header),
/// `https_proxy` or `HTTPS_PROXY` for https, `all_proxy` or `ALL_PROXY` for either when its own is
/// not set, and `no_proxy` or `NO_PROXY` for the hosts reached directly. An empty value is unset.
///
/// A proxy is `http://[USER[:PASSWORD]@]HOST[:PORT]` (an HTTP proxy, `CONNECT` for every request;
/// the scheme may be left out) or `socks5://HOST[:PORT]` (`socks5h://` too: the proxy resolves
/// names, always: AsyncHTTPClient sends the name, as curl's `socks5h://` does); the port is 1080
/// when not given, as curl has it. Loopback hosts (`ServiceURL.isLoopback`: `localhost`,
/// 127.0.0.0/8, `::1`) are never reached through a proxy, as Go's clients have it: a proxy
/// elsewhere cannot reach them, and a local walkscape-server must work whatever the environment.
public struct ProxyRule: Sendable, Hashable {
    /// A proxy, and where it was named.
    public struct Server: Sendable, Hashable {
        public enum Kind: Sendable, Hashable {
            case http
            case socks5
        }

        public var kind: Kind
        public var host: String
        public var port: Int
        var user: String?
        var password: String?
        /// The variable that named it (`HTTPS_PROXY`).
        public var origin: String

        /// `http://proxy.example:3128 (from HTTPS_PROXY)`: never its password.
        public var shown: String {
            let scheme = kind == .http ? "http" : "socks5"
            let bracketed = host.contains(":") ? "[\(host)]" : host
            let who = user.map { "\($0)@" } ?? ""
            return "\(scheme)://\(TerminalText.line(who + bracketed)):\(port) (from \(origin))"
        }

        var client: HTTPClient.Configuration.Proxy {
            switch kind {
            case .socks5:
                return .socksServer(host: host, port: port)
            case .http:
                let authorization = user.map { HTTPClient.Authorization.basic(username: $0, password: password ?? "") }
                return .server(host: host, port: port, authorization: authorization)
            }
        }
    }

    /// The proxy of plain http and of https requests, or why the value naming it is not one.
    var http: Result<Server, TransportError>?
    var https: Result<Server, TransportError>?
    /// `no_proxy`'s entries, lower case, without a leading dot; `*` alone names every host.
    var direct: [String] = []

    /// No proxy at all.
    public static let none = ProxyRule()

    public init() {}

    public init(environment: [String: String]) {
        func value(_ names: String...) -> (name: String, value: String)? {
            for name in names {
                if let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty {
                    return (name, value)
                }
            }
            return nil
        }
        let all = value("all_proxy", "ALL_PROXY")
        http = (value("http_proxy") ?? all).map { Self.parse($0.value, origin: $0.name) }
        https = (value("https_proxy", "HTTPS_PROXY") ?? all).map { Self.parse($0.value, origin: $0.name) }
        direct =
            (value("no_proxy", "NO_PROXY")?.value ?? "")
            .split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" })
            .map { written in
                var entry = written.lowercased()
                while entry.hasPrefix(".") { entry.removeFirst() }
                if entry.hasPrefix("*.") { entry.removeFirst(2) }
                while entry.hasSuffix(".") { entry.removeLast() }
                // Only `*` as written names every host, as curl has it: `*.*` or `.*` names none
                // (a slip that sent everything direct would pass a proxy the network requires).
                return entry == "*" && written != "*" ? "" : entry
            }
            .filter { !$0.isEmpty }
    }

    /// The proxy `url` is fetched through; nil to connect directly. Fails when the variable that
    /// would name it does not hold a proxy (`.invalidRequest`: the settings are wrong), and for an
    /// https host named by its address: through a proxy, the HTTP client checks such a host's
    /// certificate against the address it connected to, the proxy's, so a proxy with a
    /// certificate for its own address could read the exchange. Such a host is reached directly
    /// (`no_proxy`) or by its name.
    public func server(for url: URL) throws(TransportError) -> Server? {
        let secure = url.scheme?.lowercased() == "https"
        guard let named = secure ? https : http, let host = url.host, !bypasses(host) else { return nil }
        let server = try named.get()
        let bare = ServiceURL.unbracketed(host)
        if secure, ServiceURL.address(bare) != nil {
            throw TransportError(
                .invalidRequest,
                "\(TerminalText.line(ServiceURL.origin(url))) is named by its address, whose certificate cannot be checked through the proxy \(server.shown): name it by its host name, or list \(TerminalText.line(bare)) in no_proxy to reach it directly"
            )
        }
        return server
    }

    /// Whether `host` is reached directly: this machine, or named by `no_proxy` (the host itself
    /// or a domain above it, an address, or a range of addresses `10.0.0.0/8`; a port is not
    /// looked at).
    func bypasses(_ host: String) -> Bool {
        if ServiceURL.isLoopback(host) { return true }
        var name = ServiceURL.unbracketed(host.lowercased())
        while name.hasSuffix(".") { name.removeLast() }
        let address = ServiceURL.address(name)
        for entry in direct {
            if entry == "*" { return true }
            if let (network, bits) = Self.range(entry), let address {
                if Self.address(address, isIn: network, bits: bits) { return true }
                continue
            }
            var pattern = entry
            // `host:port` and `[v6]:port`: the port is not looked at.
            if pattern.hasPrefix("["), let close = pattern.firstIndex(of: "]") {
                pattern = String(pattern[pattern.index(after: pattern.startIndex)..<close])
            } else if pattern.filter({ $0 == ":" }).count == 1, let colon = pattern.firstIndex(of: ":") {
                pattern = String(pattern[..<colon])
            }
            if let entryAddress = ServiceURL.address(pattern) {
                if let address, Self.same(entryAddress, address) { return true }
                continue
            }
            // An address is matched by addresses and ranges only, never as a name's tail.
            if address == nil, name == pattern || name.hasSuffix("." + pattern) { return true }
        }
        return false
    }

    /// `a.b.c.d/n` or `v6/n`, and a lone address as its own range.
    static func range(_ entry: String) -> (ServiceURL.Address, Int)? {
        let parts = entry.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let bits = Int(parts[1]), let network = ServiceURL.address(String(parts[0])) else {
            return nil
        }
        switch network {
        case .v4: return (0...32).contains(bits) ? (network, bits) : nil
        case .v6: return (0...128).contains(bits) ? (network, bits) : nil
        }
    }

    static func bytes(_ address: ServiceURL.Address) -> [UInt8] {
        switch address {
        case .v4(var v4): return withUnsafeBytes(of: &v4) { Array($0) }
        case .v6(var v6): return withUnsafeBytes(of: &v6) { Array($0) }
        }
    }

    static func same(_ a: ServiceURL.Address, _ b: ServiceURL.Address) -> Bool { bytes(a) == bytes(b) }

    static func address(_ address: ServiceURL.Address, isIn network: ServiceURL.Address, bits: Int) -> Bool {
        let a = bytes(address), n = bytes(network)
        guard a.count == n.count else { return false }
        for i in 0..<a.count {
            let left = bits - i * 8
            if left <= 0 { break }
            let mask: UInt8 = left >= 8 ? 0xFF : ~(0xFF >> UInt8(left))
            if a[i] & mask != n[i] & mask { return false }
        }
        return true
    }

    /// `text` with the password of its user part left out (`http://walker@proxy:3128`), whatever
    /// else is wrong with it: it is said in errors.
    /// The user part ends at the last `@` of all: a password may hold a `/` (`http://u:a/b@p:1`
    /// is not a URL, and is said whole), and hiding a path's `@` too is the safe side.
    static func withoutPassword(_ text: String) -> String {
        let start = text.range(of: "://")?.upperBound ?? text.startIndex
        guard let at = text[start...].lastIndex(of: "@") else { return text }
        let user = text[start..<at].prefix { $0 != ":" }
        return String(text[..<start]) + user + String(text[at...])
    }

    /// A proxy URL, or why `text` is not one.
    static func parse(_ text: String, origin: String) -> Result<Server, TransportError> {
        let shown = TerminalText.echo(Self.withoutPassword(text))
        func refused(_ why: String) -> Result<Server, TransportError> {
            .failure(TransportError(.invalidRequest, "\(origin) \(shown) \(why)"))
        }
        let written = text.contains("://") ? text : "http://" + text
        guard let parts = URLComponents(string: written), let scheme = parts.scheme?.lowercased(),
            let host = parts.host, !host.isEmpty
        else {
            return refused("is not a proxy (http://HOST[:PORT] or socks5://HOST[:PORT])")
        }
        let kind: Server.Kind
        switch scheme {
        case "http": kind = .http
        case "socks5", "socks5h": kind = .socks5
        case "https": return refused("is a proxy spoken to over TLS, which walkscape cannot do: name it http://")
        default: return refused("is a \(scheme) proxy: walkscape speaks to http:// and socks5:// ones")
        }
        // A port written but not read (too large for an integer) is no port, not the default one.
        let port = parts.port ?? 1080
        guard (1...65535).contains(port), parts.port != nil || parts.rangeOfPort == nil else {
            return refused("has no usable port (a port is 1-65535)")
        }
        if kind == .socks5, parts.user != nil {
            return refused("names a user: walkscape cannot log in to a SOCKS proxy")
        }
        return .success(
            Server(
                kind: kind, host: ServiceURL.unbracketed(host), port: port, user: parts.user, password: parts.password,
                origin: origin))
    }
}

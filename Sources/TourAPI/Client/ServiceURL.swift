import Foundation
import TourModel

#if canImport(Glibc)
    import Glibc
#endif

/// The rules for a service base URL (docs/api-contract.md): http(s) only, no credentials in it, and
/// plain http only to this machine unless the user explicitly allows it.
public enum ServiceURL {
    /// `localhost`, an IPv4 address in 127.0.0.0/8 (four dotted numbers) and `::1`: traffic that
    /// never leaves the machine. A name that merely starts with `127.` (`127.example.org`) or ends
    /// in `.localhost` is resolved by DNS like any other, so it is not loopback.
    public static func isLoopback(_ host: String) -> Bool {
        let h = unbracketed(host.lowercased())
        if h == "localhost" { return true }
        switch address(h) {
        case .v4(let v4): return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        case .v6(var v6):
            return withUnsafeBytes(of: &v6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
        case nil: return false
        }
    }

    /// A host as it is named without the brackets an IPv6 address wears in a URL (`[::1]` is `::1`).
    static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// An IP address written as a host (an IPv6 one with or without its brackets).
    enum Address {
        case v4(in_addr)
        case v6(in6_addr)
    }

    /// The address `host` is, when it is one rather than a name.
    static func address(_ host: String) -> Address? {
        let h = unbracketed(host)
        var v4 = in_addr()
        if inet_pton(AF_INET, h, &v4) == 1 { return .v4(v4) }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, h, &v6) == 1 { return .v6(v6) }
        return nil
    }

    public static func validate(_ text: String, allowInsecureHTTP: Bool) -> Result<URL, APIError> {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty, let url = components.url
        else {
            return .failure(
                APIError(
                    .invalidConfiguration, "\(TerminalText.echo(text)) is not a URL (expected https://host[:port])"))
        }
        guard url.hasUsablePort else {
            return .failure(
                APIError(.invalidConfiguration, "\(TerminalText.echo(text)) has no usable port (a port is 1-65535)"))
        }
        guard components.user == nil, components.password == nil else {
            return .failure(APIError(.invalidConfiguration, "the service URL must not contain a user name or password"))
        }
        guard components.query == nil, components.fragment == nil else {
            return .failure(
                APIError(
                    .invalidConfiguration,
                    "\(TerminalText.echo(text)) has a query or fragment; give the service's base URL"))
        }
        switch scheme {
        case "https":
            return .success(url)
        case "http":
            if isLoopback(host) || allowInsecureHTTP { return .success(url) }
            return .failure(
                APIError(
                    .invalidConfiguration,
                    "\(TerminalText.echo(text)) uses plain http to a host that is not this machine"))
        default:
            return .failure(
                APIError(
                    .invalidConfiguration,
                    "\(TerminalText.echo(text)) must start with https:// (or http:// for a local server)"))
        }
    }

    /// True for an https URL, and for plain http to this machine or when explicitly allowed: the
    /// rule for anything fetched (media, redirects) besides the service URL itself.
    public static func permits(_ url: URL, allowInsecureHTTP: Bool) -> Bool {
        guard url.hasUsablePort else { return false }
        switch url.scheme?.lowercased() {
        case "https": return true
        case "http": return allowInsecureHTTP || isLoopback(url.host ?? "")
        default: return false
        }
    }

    /// One spelling per service (scheme and host lowercased, default port and trailing slash
    /// dropped), so saved credentials are matched to the service they came from.
    public static func key(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        if (components.scheme == "https" && components.port == 443)
            || (components.scheme == "http" && components.port == 80)
        {
            components.port = nil
        }
        while components.percentEncodedPath.hasSuffix("/") { components.percentEncodedPath.removeLast() }
        return components.string ?? url.absoluteString
    }

    /// `host:port` (or `host`) for messages.
    public static func origin(_ url: URL) -> String {
        guard let name = url.host else { return url.absoluteString }
        // An IPv6 address keeps its brackets, or its port would read as part of it.
        let host = name.contains(":") ? "[\(name)]" : name
        return url.port.map { "\(host):\($0)" } ?? host
    }
}

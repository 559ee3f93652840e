import Foundation

/// The rules for an API base URL (API-CONTRACT.md): http(s) only, and plain http only to loopback
/// hosts unless the user explicitly allows it.
enum APIEndpoint {
    static func validate(_ text: String, allowInsecure: Bool) -> Result<String, CLIError> {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty else {
            return .failure(.usage("'\(text)' is not a URL (expected https://host[:port])"))
        }
        switch scheme {
        case "https":
            return .success(text)
        case "http":
            let loopback = host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
            if loopback || allowInsecure { return .success(text) }
            return .failure(.usage("'\(text)' uses plain http to a host that is not this machine"))
        default:
            return .failure(.usage("'\(text)' must start with https:// (or http:// for a local server)"))
        }
    }
}

import Foundation

extension URL {
    /// Whether the URL names no port (its scheme's own) or one a host can have, 1-65535. A larger
    /// one stops the process where a connection to it is made, and one too long for a number is
    /// silently dropped by `URL` for the scheme's own port: neither is usable. The one rule for the
    /// walker's service URL, the links and redirects the service gives, and the server's public URL.
    public var hasUsablePort: Bool {
        guard let components = URLComponents(url: self, resolvingAgainstBaseURL: true) else { return false }
        guard let range = components.rangeOfPort else { return true }
        guard let text = components.string, let port = Int(text[range]) else { return false }
        return (1...65535).contains(port)
    }
}

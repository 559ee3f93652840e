import Foundation

/// Which redirects are followed, and what a followed request keeps.
///
/// A redirect to another origin (scheme, host or port) is followed without `Authorization`,
/// `Cookie` or `Proxy-Authorization`: a bearer token is for the service that issued it. A redirect
/// to plain http is refused unless to a loopback host or explicitly allowed, the same rule as for
/// the service URL itself.
public struct RedirectRule: Sendable, Hashable {
    public var maxRedirects: Int
    public var allowInsecureHTTP: Bool

    public init(maxRedirects: Int = 5, allowInsecureHTTP: Bool = false) {
        self.maxRedirects = maxRedirects
        self.allowInsecureHTTP = allowInsecureHTTP
    }

    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]
    static let credentialHeaders = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// The request to send next, or nil when the answer is to be returned as it is.
    public func follow(_ request: HTTPRequest, status: Int, location: String?) -> HTTPRequest? {
        guard Self.redirectStatuses.contains(status), let location, !location.isEmpty,
            let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
            let host = target.host, !host.isEmpty,
            ServiceURL.permits(target, allowInsecureHTTP: allowInsecureHTTP)
        else { return nil }
        var next = request
        next.url = target
        // 303 always, and 301/302 after a POST (as browsers do), become a GET without a body.
        if (status == 303 && request.method != .head) || ((status == 301 || status == 302) && request.method == .post) {
            next.method = .get
            next.body = nil
            next.headers.remove("Content-Type")
            next.headers.remove("Content-Length")
        }
        if !Self.sameOrigin(request.url, target) {
            for name in Self.credentialHeaders { next.headers.remove(name) }
        }
        return next
    }

    public static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func origin(_ url: URL) -> (String, String, Int)? {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
            return (scheme, host, url.port ?? (scheme == "https" ? 443 : 80))
        }
        guard let x = origin(a), let y = origin(b) else { return false }
        return x == y
    }
}

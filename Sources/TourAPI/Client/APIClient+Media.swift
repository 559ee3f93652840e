import Foundation
import TourModel

extension APIClient {
    /// The download seam: a GET of a media URL from a manifest (opaque, often presigned on another
    /// host), with the caller's headers (`Range`, `If-Range`), its body streamed. Never carries the
    /// session's token. Retried like any GET until the answer's head arrives; every status is the
    /// caller's to judge (206, 200, 416, or 403 for an expired URL), and a body that breaks off is
    /// the caller's to resume.
    public func fetch(_ url: URL, headers: HTTPHeaderFields = [:], timeout: Duration? = nil) async throws(APIError)
        -> HTTPResponse
    {
        if let problem = mediaLinkProblem(url) { throw problem }
        var request = HTTPRequest(method: .get, url: url, headers: headers, timeout: timeout)
        request.headers["User-Agent"] = channel.userAgent
        request.headers.remove("Authorization")
        do {
            return try await channel.executor.send(request, idempotent: true)
        } catch {
            throw APIError(error, service: url)
        }
    }

    /// Why `fetch` refuses `url` without sending anything; nil when it would send it.
    public func mediaLinkProblem(_ url: URL) -> APIError? {
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "https" || scheme == "http" else {
            // The service's data is wrong, not the walker's set-up.
            return APIError(
                .protocolError,
                "the service links media to a \(scheme.isEmpty ? "schemeless" : scheme + "://") URL; walkscape fetches media over https"
            )
        }
        guard url.hasUsablePort else {
            return APIError(
                .protocolError,
                "the service links media to \(ServiceURL.origin(url)), whose port no host can have (a port is 1-65535)")
        }
        guard ServiceURL.permits(url, allowInsecureHTTP: channel.executor.redirects.allowInsecureHTTP) else {
            return APIError(
                .invalidConfiguration, "refusing to download over plain http from \(ServiceURL.origin(url))")
        }
        return nil
    }
}

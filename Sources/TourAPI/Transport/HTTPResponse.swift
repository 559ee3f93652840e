import Foundation

/// An answer whose head has arrived; its body streams (a download reads it chunk by chunk, a JSON
/// call collects it with a size limit).
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaderFields
    public var body: ResponseBody
    /// The URL that answered (after any redirects followed).
    public var url: URL

    public init(status: Int, headers: HTTPHeaderFields = [:], body: ResponseBody = .empty, url: URL) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    public var isSuccess: Bool { (200..<300).contains(status) }
}

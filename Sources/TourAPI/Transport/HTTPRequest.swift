import Foundation

/// One HTTP request as the transport sends it. The body is whole bytes, never a stream, so a
/// request can be sent again unchanged when it may be retried.
public struct HTTPRequest: Sendable {
    public enum Method: String, Sendable, Hashable {
        case get = "GET", head = "HEAD", post = "POST", put = "PUT", patch = "PATCH", delete = "DELETE"
    }

    public var method: Method
    public var url: URL
    public var headers: HTTPHeaderFields
    public var body: Data?
    /// How long the exchange may take until the answer's head has arrived (connecting included);
    /// nil for the transport's default. A body then streams under the transport's read timeout.
    public var timeout: Duration?
    /// The whole answer, body included, must arrive within the timeout (an API answer: a service
    /// dripping it a byte at a time must not hold a command for ever). False for media, whose
    /// body may stream for minutes as long as bytes keep coming.
    public var boundsWholeAnswer: Bool

    public init(
        method: Method, url: URL, headers: HTTPHeaderFields = [:], body: Data? = nil, timeout: Duration? = nil,
        boundsWholeAnswer: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.boundsWholeAnswer = boundsWholeAnswer
    }

    /// `GET /tours/abc`: for messages. Never the query (a presigned URL's signature lives there)
    /// and never a header (the bearer token does).
    public var summary: String {
        "\(method.rawValue) \(url.path.isEmpty ? "/" : url.path)"
    }
}

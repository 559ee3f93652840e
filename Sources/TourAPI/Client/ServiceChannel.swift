import Foundation
import TourModel

/// Builds the service's requests and turns their answers into data or an `APIError`: the one
/// place that knows the base URL, the headers every request carries, and the answer size limit.
public struct ServiceChannel: Sendable {
    public let service: URL
    public var executor: RequestExecutor
    public var userAgent: String
    /// Larger API answers are refused (the catalog of a big deployment is well under this).
    public var maxAnswerBytes = 8 * 1024 * 1024

    public init(service: URL, executor: RequestExecutor, userAgent: String) {
        self.service = service
        self.executor = executor
        self.userAgent = userAgent
    }

    /// A request for `path` (segments already escaped with `segment`) under the service URL.
    /// The token goes in a header only: never in the URL.
    public func request(
        _ method: HTTPRequest.Method, _ path: String, query: [URLQueryItem] = [], json body: Data? = nil,
        token: String? = nil, timeout: Duration? = nil
    ) -> HTTPRequest {
        var components = URLComponents(url: service, resolvingAgainstBaseURL: false) ?? URLComponents()
        var base = components.percentEncodedPath
        while base.hasSuffix("/") { base.removeLast() }
        components.percentEncodedPath = base + path
        components.queryItems = query.isEmpty ? nil : query
        var headers: HTTPHeaderFields = ["Accept": "application/json", "User-Agent": userAgent]
        if body != nil { headers["Content-Type"] = "application/json" }
        if let token { headers["Authorization"] = "Bearer \(token)" }
        return HTTPRequest(
            method: method, url: components.url ?? service, headers: headers, body: body, timeout: timeout,
            boundsWholeAnswer: true)
    }

    /// One path segment, escaped (ids come from the service, but are still data).
    public static func segment(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/;?#")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// Sends and reads the whole answer; transport failures become `APIError`s.
    public func perform(_ request: HTTPRequest, idempotent: Bool) async throws(APIError) -> ServiceAnswer {
        do {
            let response = try await executor.send(request, idempotent: idempotent, collectingUpTo: maxAnswerBytes)
            let data = try await response.body.collect(upTo: maxAnswerBytes)
            return ServiceAnswer(
                request: request.summary, status: response.status, headers: response.headers, data: data)
        } catch {
            throw APIError(error, service: service)
        }
    }

    public func decode<T: Decodable>(_ type: T.Type, from answer: ServiceAnswer) throws(APIError) -> T {
        do {
            return try WalkscapeJSON.decoder().decode(T.self, from: answer.data)
        } catch {
            // JSON is UTF-8: say so rather than the JSON parser's words about a byte it choked on.
            if String(validating: answer.data, as: UTF8.self) == nil {
                throw APIError(.protocolError, "the service's answer to \(answer.request) is not UTF-8 text")
            }
            throw APIError.undecodable(answer.request, error)
        }
    }

    public static func json(_ value: some Encodable) -> Data {
        // Encoding strings, bools and our own event values cannot fail.
        (try? WalkscapeJSON.encoder().encode(value)) ?? Data("{}".utf8)
    }
}

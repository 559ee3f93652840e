import Foundation
import TourModel

/// A whole answer of the service.
public struct ServiceAnswer: Sendable {
    /// `GET /tours`: the request it answers, for messages.
    public var request: String
    public var status: Int
    public var headers: HTTPHeaderFields
    public var data: Data

    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The contract's error body, when there is one; else a short plain-text answer's first line
    /// (a server's or a proxy's own words, such as "This port speaks HTTPS").
    public var errorBody: APIErrorBody? {
        if data.isEmpty { return nil }
        if let body = try? JSONDecoder().decode(APIErrorBody.self, from: data) { return body }
        guard data.count <= 300, headers["Content-Type"]?.lowercased().hasPrefix("text/plain") == true,
            let line = String(data: data, encoding: .utf8)?.split(whereSeparator: \.isNewline).first
        else { return nil }
        let said = TerminalText.line(String(line)).trimmingCharacters(in: .whitespaces)
        return said.isEmpty ? nil : APIErrorBody(statusCode: status, messages: [said], error: nil, messageIsList: false)
    }

    public func retryAfter(now: Date) -> Duration? {
        headers["Retry-After"].flatMap { RetryAfter.parse($0, now: now) }
    }

    /// The error for a status no endpoint has a better word for.
    public func error(now: Date = Date()) -> APIError {
        APIError.status(status, body: errorBody, request: request, retryAfter: retryAfter(now: now))
    }
}

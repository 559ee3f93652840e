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

    /// The contract's error body, when there is one.
    public var errorBody: APIErrorBody? {
        data.isEmpty ? nil : try? JSONDecoder().decode(APIErrorBody.self, from: data)
    }

    public func retryAfter(now: Date) -> Duration? {
        headers["Retry-After"].flatMap { RetryAfter.parse($0, now: now) }
    }

    /// The error for a status no endpoint has a better word for.
    public func error(now: Date = Date()) -> APIError {
        APIError.status(status, body: errorBody, request: request, retryAfter: retryAfter(now: now))
    }
}

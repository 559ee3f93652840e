import Foundation
import TourModel

extension APIClient {
    /// `GET /tours`: every tour, with `hasAccess` when logged in. Unpublished tours (no language)
    /// are included: callers hide them.
    public func tours() async throws(APIError) -> [TourSummary] {
        let answer = try await call(.get, "/tours", auth: .optional, idempotent: true)
        return try channel.decode([TourSummary].self, from: answer)
    }

    /// `GET /tours/:id?language=L`.
    public func tour(_ id: String, language: String) async throws(APIError) -> TourDetail {
        let answer = try await call(
            .get, "/tours/\(ServiceChannel.segment(id))", query: [URLQueryItem(name: "language", value: language)],
            auth: .optional, idempotent: true
        ) { answer in
            answer.status == 404
                ? APIError(.notFound, "no tour \(id) in language \(language) on the service", status: 404) : nil
        }
        return try channel.decode(TourDetail.self, from: answer)
    }

    /// `GET /tours/:id/points?language=L`, in walking order.
    public func points(ofTour id: String, language: String) async throws(APIError) -> [TourPoint] {
        let answer = try await call(
            .get, "/tours/\(ServiceChannel.segment(id))/points",
            query: [URLQueryItem(name: "language", value: language)],
            auth: .optional, idempotent: true
        ) { answer in
            Self.protectedTourError(answer, id: id, language: language)
        }
        return try channel.decode([TourPoint].self, from: answer).sorted { $0.order < $1.order }
    }

    /// `GET /tours/:id/manifest?language=L`: the media of one language version.
    public func manifest(ofTour id: String, language: String) async throws(APIError) -> TourManifest {
        let answer = try await call(
            .get, "/tours/\(ServiceChannel.segment(id))/manifest",
            query: [URLQueryItem(name: "language", value: language)],
            auth: .optional, idempotent: true
        ) { answer in
            Self.protectedTourError(answer, id: id, language: language)
        }
        return try channel.decode(TourManifest.self, from: answer)
    }

    static func protectedTourError(_ answer: ServiceAnswer, id: String, language: String) -> APIError? {
        switch answer.status {
        case 403:
            APIError(.forbidden, "tour \(id) is locked", status: 403, remedy: .redeemVoucher)
        case 404: APIError(.notFound, "no tour \(id) in language \(language) on the service", status: 404)
        default: nil
        }
    }
}

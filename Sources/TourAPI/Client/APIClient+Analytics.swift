import Foundation
import TourModel

extension APIClient {
    /// `POST /analytics/events` with one batch (204 on success). Retried like a GET: every event
    /// carries `properties.eventId`, which the service de-duplicates. A 400 (`rejected`, with the
    /// service's messages naming the bad events) or a 413 (`tooLarge`: split the batch) is never
    /// worth sending again unchanged. Sent with the user's token when the session is good,
    /// anonymously when it cannot be renewed. The live service rejects the guide's dialect: send
    /// it only when a deployment is configured for it.
    public func send(events: [AnalyticsEvent], dialect: APIDialect = .live, timeout: Duration? = nil)
        async throws(APIError)
    {
        guard !events.isEmpty else { return }
        let body: Data
        do { body = try WalkscapeJSON.encode(AnalyticsBatch(events: events), dialect: dialect) } catch {
            throw APIError(.local, "cannot encode the analytics batch: \(error)")
        }
        _ = try await call(
            .post, "/analytics/events", json: body, auth: .bestEffort, idempotent: true, timeout: timeout
        ) { answer in
            switch answer.status {
            case 400:
                APIError(
                    .rejected,
                    "the service refused the analytics batch: \(answer.errorBody?.summary ?? "invalid events")",
                    status: 400, serverMessages: answer.errorBody?.messages ?? [])
            case 413:
                APIError(
                    .tooLarge, "the analytics batch of \(events.count) events is too large for the service", status: 413
                )
            default: nil
            }
        }
    }
}

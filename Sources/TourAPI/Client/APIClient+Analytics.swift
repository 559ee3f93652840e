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
        try await post(batch: body, count: events.count, timeout: timeout)
    }

    /// The same, for events already written as live-shaped JSON objects (the outbox keeps them so):
    /// the body is put together from them without decoding or encoding anything.
    public func send(liveEvents: [Data], timeout: Duration? = nil) async throws(APIError) {
        guard !liveEvents.isEmpty else { return }
        var body = Data("{\"events\":[".utf8)
        body.reserveCapacity(liveEvents.reduce(16) { $0 + $1.count + 1 })
        for (i, event) in liveEvents.enumerated() {
            if i > 0 { body.append(UInt8(ascii: ",")) }
            body.append(event)
        }
        body.append(contentsOf: Array("]}".utf8))
        try await post(batch: body, count: liveEvents.count, timeout: timeout)
    }

    private func post(batch body: Data, count: Int, timeout: Duration?) async throws(APIError) {
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
                    .tooLarge, "the analytics batch of \(count) events is too large for the service", status: 413)
            default: nil
            }
        }
    }
}

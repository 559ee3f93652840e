import TourAPI
import TourModel

/// Delivers batches with the API client (`APIClient.send(events:)`): the user's token when the
/// session is good, anonymously otherwise; in the live dialect unless configured otherwise.
///
/// The client given should make one attempt per request (`RetryPolicy.once`): the batcher owns the
/// waiting between attempts, with the whole outbox and the command's time budget in view, so a
/// request is never retried inside a retry.
public struct ServiceBatchTransport: BatchTransport {
    public let client: APIClient
    public let dialect: APIDialect
    /// How a failure is told: its message, and the way out in the caller's words (a library names
    /// no command).
    public let describe: @Sendable (APIError) -> String

    public init(
        client: APIClient, dialect: APIDialect = .live,
        describe: @escaping @Sendable (APIError) -> String = { $0.message }
    ) {
        self.client = client
        self.dialect = dialect
        self.describe = describe
    }

    public func deliver(_ events: [AnalyticsEvent], timeout: Duration?) async -> DeliveryResult {
        do {
            try await client.send(events: events, dialect: dialect, timeout: timeout)
            return .delivered
        } catch {
            return Self.result(of: error, describe: describe)
        }
    }

    /// In the live dialect the outbox's JSON goes as it is: no decoding and encoding again.
    public func deliver(batch: [PendingEvent], timeout: Duration?) async -> DeliveryResult {
        guard dialect == .live else { return await deliver(batch.map(\.event), timeout: timeout) }
        do {
            try await client.send(liveEvents: batch.map(\.json), timeout: timeout)
            return .delivered
        } catch {
            return Self.result(of: error, describe: describe)
        }
    }

    public func serviceAnswers(timeout: Duration?) async -> Bool {
        let report = try? await client.health(timeout: min(timeout ?? Self.healthTimeout, Self.healthTimeout))
        return report?.isHealthy ?? false
    }

    static let healthTimeout = Duration.seconds(10)

    /// The API client's failure as the batcher sees it.
    static func result(
        of error: APIError, describe: (APIError) -> String = { $0.message }
    ) -> DeliveryResult {
        switch error.kind {
        case .rejected:
            return .rejected(messages: error.serverMessages.isEmpty ? [error.message] : error.serverMessages)
        case .tooLarge:
            return .tooLarge
        case .temporary where (500...599).contains(error.status ?? 0):
            return .serviceFailed(status: error.status ?? 500, reason: error.message, after: error.retryAfter)
        case .temporary:
            return .retryLater(reason: error.message, unreachable: false, after: error.retryAfter)
        case .unavailable where error.transport?.requestWasNotSent == true:
            return .retryLater(reason: error.message, unreachable: true, after: nil)
        case .local where error.transport == .cancelled:
            return .retryLater(reason: "cancelled", unreachable: false, after: nil)
        default:
            return .failed(reason: describe(error))
        }
    }
}

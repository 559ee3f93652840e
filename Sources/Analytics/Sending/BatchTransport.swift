import TourModel

/// The seam between the batcher and HTTP: one attempt to deliver one batch, no retries of its own
/// (the batcher decides when to try again, so retries are never stacked on retries).
public protocol BatchTransport: Sendable {
    /// `timeout`: how long this attempt may take at most (nil: the transport's own limits).
    func deliver(_ events: [AnalyticsEvent], timeout: Duration?) async -> DeliveryResult
    /// The same for events as the outbox holds them (their live JSON): a transport speaking the
    /// live dialect sends that JSON as it is; by default the events are decoded and delivered.
    func deliver(batch: [PendingEvent], timeout: Duration?) async -> DeliveryResult
    /// Whether the service answers requests other than these batches now (its health check says
    /// so): a batch it keeps failing on while it does holds events it cannot take.
    func serviceAnswers(timeout: Duration?) async -> Bool
}

extension BatchTransport {
    public func deliver(batch: [PendingEvent], timeout: Duration?) async -> DeliveryResult {
        await deliver(batch.map(\.event), timeout: timeout)
    }
}

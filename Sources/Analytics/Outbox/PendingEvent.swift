import TourModel

/// An event waiting for its service, as the batcher sends it.
public struct PendingEvent: Sendable, Hashable {
    /// Its place in the recording order.
    public var seq: Int64
    public var eventID: String
    /// The event in the live shape, `offline` filled in.
    public var event: AnalyticsEvent
    /// About what it adds to a batch's body, for the batch size limit.
    public var bytes: Int

    public init(seq: Int64, eventID: String, event: AnalyticsEvent, bytes: Int) {
        self.seq = seq
        self.eventID = eventID
        self.event = event
        self.bytes = bytes
    }
}

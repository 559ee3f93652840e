import Foundation
import TourModel

/// One event to put in the outbox, with what only the recorder knows.
public struct Recording: Sendable, Hashable {
    /// The event in the live shape; `properties.eventId` identifies it (one is made when missing).
    public var event: AnalyticsEvent
    public var origin: EventOrigin
    /// Whether it happened while the service could not be reached; nil when nobody knows yet (the
    /// next attempt to reach the service decides).
    public var offline: Bool?
    public var recordedAt: Date

    public init(event: AnalyticsEvent, origin: EventOrigin, offline: Bool? = nil, recordedAt: Date = Date()) {
        self.event = event
        self.origin = origin
        self.offline = offline
        self.recordedAt = recordedAt
    }
}

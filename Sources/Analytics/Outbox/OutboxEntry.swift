import Foundation
import TourModel

/// An event in the outbox as `walkscape analytics show` lists it: exactly what would be sent.
public struct OutboxEntry: Sendable, Hashable {
    public enum State: String, Sendable, Hashable, Codable, CaseIterable {
        /// Waits for its service.
        case waiting
        /// The service refused it (400): kept with the service's words, never sent again by itself.
        case quarantined
        /// From a tour folder: never sent.
        case local
    }

    public var seq: Int64
    public var state: State
    /// The service it is for (nil: local).
    public var service: String?
    public var event: AnalyticsEvent
    public var recordedAt: Date
    /// For a quarantined event: what the service said.
    public var problem: String?

    public init(seq: Int64, state: State, service: String?, event: AnalyticsEvent, recordedAt: Date, problem: String?) {
        self.seq = seq
        self.state = state
        self.service = service
        self.event = event
        self.recordedAt = recordedAt
        self.problem = problem
    }
}

import Foundation
import TourModel

/// An event waiting for its service, as the batcher sends it.
public struct PendingEvent: Sendable, Hashable {
    /// Its place in the recording order.
    public var seq: Int64
    public var eventID: String
    /// The event in the live shape, `offline` filled in, as the JSON object that goes into a
    /// batch's body: the stored payload itself, so a batch is sent without decoding it.
    public var json: Data
    /// About what it adds to a batch's body, for the batch size limit.
    public var bytes: Int

    public init(seq: Int64, eventID: String, json: Data, bytes: Int) {
        self.seq = seq
        self.eventID = eventID
        self.json = json
        self.bytes = bytes
    }

    /// The event decoded, for a transport that must reshape it (the guide's dialect) and for
    /// tests. A payload that cannot be read back gives an event with only its id (never expected:
    /// this outbox wrote it).
    public var event: AnalyticsEvent {
        (try? WalkscapeJSON.decoder().decode(AnalyticsEvent.self, from: json))
            ?? AnalyticsEvent(name: "", properties: ["eventId": .string(eventID)])
    }
}

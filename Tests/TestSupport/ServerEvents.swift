import TourModel

/// `walkscape-server events --json`: each event in the live shape (so `AnalyticsEvent` reads it)
/// plus what the server recorded about it.
public struct ServerEvents: Sendable, Decodable {
    public struct Received: Sendable, Decodable {
        public var event: AnalyticsEvent
        public var eventID: String?
        public var requestUserID: String?
        public var duplicate: Bool

        public init(from decoder: any Decoder) throws {
            event = try AnalyticsEvent(from: decoder)
            let c = try decoder.container(keyedBy: Key.self)
            eventID = try c.decodeIfPresent(String.self, forKey: .eventId)
            requestUserID = try c.decodeIfPresent(String.self, forKey: .requestUserId)
            duplicate = try c.decode(Bool.self, forKey: .duplicate)
        }

        enum Key: String, CodingKey { case eventId, requestUserId, duplicate }
    }

    public var received: Int
    public var unique: Int
    public var duplicates: Int
    public var events: [Received]
}

import Foundation
import TourModel

/// An analytics event in the live service's shape (docs/api-contract.md, "Analytics"), produced by the
/// walk core as a `track` effect, so the outbox only has to store and send it.
///
/// Encodes to exactly the contract's keys (`name`, `tourId`, `pointId`, `language`, `timestamp`,
/// `properties`). The outbox adds what the core cannot know without I/O or randomness:
/// `properties.eventId`, `anonymousId`, `device`, `osVersion`, `offline`. The journal stores it as
/// the general `AnalyticsEvent`, beside the events of commands that are not walks (`login`, ...).
public struct WalkEvent: Sendable, Hashable, Codable {
    public enum Name: String, Sendable, Hashable, Codable, CaseIterable {
        case tourStarted = "tour_started"
        case pointTriggered = "point_triggered"
        case tourCompleted = "tour_completed"
        case tourAbandoned = "tour_abandoned"
    }

    public var name: Name
    public var tourID: String
    public var pointID: String?
    public var language: String
    public var timestamp: Date
    public var properties: [String: WalkEventValue]

    public init(
        name: Name, tourID: String, pointID: String? = nil, language: String, timestamp: Date,
        properties: [String: WalkEventValue] = [:]
    ) {
        self.name = name
        self.tourID = tourID
        self.pointID = pointID
        self.language = language
        self.timestamp = timestamp
        self.properties = properties
    }

    enum CodingKeys: String, CodingKey {
        case name
        case tourID = "tourId"
        case pointID = "pointId"
        case language, timestamp, properties
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(Name.self, forKey: .name)
        tourID = try c.decode(String.self, forKey: .tourID)
        pointID = try c.decodeIfPresent(String.self, forKey: .pointID)
        language = try c.decode(String.self, forKey: .language)
        let text = try c.decode(String.self, forKey: .timestamp)
        guard let date = ISO8601.parse(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: .timestamp, in: c, debugDescription: "not an ISO-8601 time: \(text)")
        }
        timestamp = date
        properties = try c.decodeIfPresent([String: WalkEventValue].self, forKey: .properties) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(tourID, forKey: .tourID)
        try c.encodeIfPresent(pointID, forKey: .pointID)
        try c.encode(language, forKey: .language)
        try c.encode(ISO8601.format(timestamp), forKey: .timestamp)
        try c.encode(properties, forKey: .properties)
    }
}

extension WalkEvent {
    /// The same event in the general shape the journal and the outbox store.
    public var analyticsEvent: AnalyticsEvent {
        AnalyticsEvent(
            name: name.rawValue, tourID: tourID, pointID: pointID, language: language, timestamp: timestamp,
            properties: properties.mapValues { value in
                switch value {
                case .string(let s): .string(s)
                case .int(let i): .number(Double(i))
                case .double(let d): .number(d)
                case .bool(let b): .bool(b)
                }
            })
    }
}

import Foundation

/// One analytics event as `POST /analytics/events` carries it.
///
/// Live: `{name, userId?, anonymousId?, tourId?, pointId?, language?, device?, osVersion?, offline?,
/// timestamp?, properties?}` and nothing else (any other key is a 400 for the whole batch).
/// Guide: `{eventType, properties: {tourId, pointId, language, offline, ...}}`, which the live service
/// rejects; it is written only when a deployment is configured for it.
public struct AnalyticsEvent: Sendable, Hashable, Decodable, APIEncodable {
    /// The `platform` property every event of this player carries.
    public static let platform = "linux"

    /// The event names the live service accepts.
    public static let names: [String] = [
        "app_open", "signup", "login", "tour_viewed", "tour_download_started", "tour_download_completed",
        "tour_download_deleted", "tour_started", "point_triggered", "tour_completed", "tour_abandoned",
        "follow_us_clicked", "contact_clicked", "voucher_redeemed", "donation_link_clicked",
    ]
    /// The keys the live service accepts on an event (its whitelist).
    public static let liveKeys: [String] = [
        "name", "userId", "anonymousId", "tourId", "pointId", "language", "device", "osVersion", "offline",
        "timestamp", "properties",
    ]

    public var name: String
    public var userID: String?
    public var anonymousID: String?
    public var tourID: String?
    public var pointID: String?
    public var language: String?
    public var device: String?
    public var osVersion: String?
    public var offline: Bool?
    public var timestamp: Date?
    public var properties: [String: JSONValue]

    public init(
        name: String, userID: String? = nil, anonymousID: String? = nil, tourID: String? = nil,
        pointID: String? = nil, language: String? = nil, device: String? = nil, osVersion: String? = nil,
        offline: Bool? = nil, timestamp: Date? = nil, properties: [String: JSONValue] = [:]
    ) {
        self.name = name
        self.userID = userID
        self.anonymousID = anonymousID
        self.tourID = tourID
        self.pointID = pointID
        self.language = language
        self.device = device
        self.osVersion = osVersion
        self.offline = offline
        self.timestamp = timestamp
        self.properties = properties
    }

    /// The client-generated id that lets a retried batch be de-duplicated (`properties.eventId`).
    public var eventID: String? { properties["eventId"]?.stringValue }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        properties = try c.first([String: JSONValue].self, "properties") ?? [:]
        name = try c.require(String.self, "name", "eventType")
        // The guide keeps ids inside `properties`; the top level wins when both say.
        func text(_ key: String) throws -> String? {
            try c.first(String.self, key) ?? properties[key]?.stringValue
        }
        userID = try text("userId")
        anonymousID = try text("anonymousId")
        tourID = try text("tourId")
        pointID = try text("pointId")
        language = try text("language")
        device = try text("device")
        osVersion = try text("osVersion")
        offline = try c.first(Bool.self, "offline") ?? properties["offline"]?.boolValue
        if let text = try c.first(String.self, "timestamp") {
            guard let date = ISO8601.parse(text) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: c.codingPath + [AnyKey("timestamp")],
                        debugDescription: "\"\(text)\" is not an ISO-8601 time with a zone"))
            }
            timestamp = date
        } else {
            timestamp = nil
        }
    }

    public func encode(to encoder: any Encoder, dialect: APIDialect) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        switch dialect {
        case .live:
            try c.put(name, "name")
            try c.putIfPresent(userID, "userId")
            try c.putIfPresent(anonymousID, "anonymousId")
            try c.putIfPresent(tourID, "tourId")
            try c.putIfPresent(pointID, "pointId")
            try c.putIfPresent(language, "language")
            try c.putIfPresent(device, "device")
            try c.putIfPresent(osVersion, "osVersion")
            try c.putIfPresent(offline, "offline")
            try c.putIfPresent(timestamp.map(ISO8601.format), "timestamp")
            if !properties.isEmpty { try c.put(properties, "properties") }
        case .guide:
            try c.put(name, "eventType")
            var moved = properties
            let values: [String: String?] = [
                "userId": userID, "anonymousId": anonymousID, "tourId": tourID,
                "pointId": pointID, "language": language, "device": device,
                "osVersion": osVersion,
            ]
            for (key, value) in values { if let value { moved[key] = .string(value) } }
            if let offline { moved["offline"] = .bool(offline) }
            try c.putIfPresent(timestamp.map(ISO8601.format), "timestamp")
            try c.put(moved, "properties")
        }
    }
}

import Foundation
import GRDB
import TourModel

/// Received analytics events. Each batch is stored whole or not at all; a retried batch is stored
/// again and counted as duplicates by `properties.eventId`, as a downstream de-duplication would.
public struct AnalyticsStore: Sendable {
    /// One stored event, as `events --json` prints it: the live event shape plus what the server added.
    public struct Received: Sendable, Hashable, Encodable {
        public var event: AnalyticsEvent
        public var eventID: String?
        public var requestUserID: String?
        public var receivedAt: Date
        /// True when an earlier stored event had the same `eventId`.
        public var duplicate: Bool

        public func encode(to encoder: any Encoder) throws {
            try event.encode(to: encoder, dialect: .live)
            var c = encoder.container(keyedBy: Key.self)
            try c.encodeIfPresent(eventID, forKey: .eventId)
            try c.encodeIfPresent(requestUserID, forKey: .requestUserId)
            try c.encode(ISO8601.format(receivedAt), forKey: .receivedAt)
            try c.encode(duplicate, forKey: .duplicate)
        }

        enum Key: String, CodingKey { case eventId, requestUserId, receivedAt, duplicate }
    }

    public struct Summary: Sendable, Hashable, Encodable {
        public var received: Int
        public var unique: Int
        public var duplicates: Int
        public var events: [Received]
    }

    let database: ServerDatabase

    public init(database: ServerDatabase) { self.database = database }

    public func store(_ events: [AnalyticsEvent], requestUserID: String?, receivedAt: Date = Date()) throws {
        let encoder = WalkscapeJSON.encoder()
        try database.writer.write { db in
            for event in events {
                let properties = String(decoding: try encoder.encode(event.properties), as: UTF8.self)
                try db.execute(
                    sql: """
                        INSERT INTO event (eventId, name, userId, anonymousId, tourId, pointId, language, device, osVersion,
                                           offline, timestamp, properties, requestUserId, receivedAt)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        event.eventID, event.name, event.userID, event.anonymousID, event.tourID,
                        event.pointID, event.language, event.device, event.osVersion, event.offline,
                        event.timestamp ?? receivedAt, properties, requestUserID, receivedAt,
                    ])
            }
            try Counters.increment("eventBatches", in: db)
        }
    }

    public func summary() throws -> Summary {
        let decoder = WalkscapeJSON.decoder()
        return try database.writer.read { db in
            var seen = Set<String>()
            var events: [Received] = []
            for row in try Row.fetchAll(db, sql: "SELECT * FROM event ORDER BY id") {
                let eventID: String? = row["eventId"]
                let properties =
                    (try? decoder.decode([String: JSONValue].self, from: Data((row["properties"] as String).utf8)))
                    ?? [:]
                let event = AnalyticsEvent(
                    name: row["name"], userID: row["userId"], anonymousID: row["anonymousId"],
                    tourID: row["tourId"], pointID: row["pointId"], language: row["language"],
                    device: row["device"], osVersion: row["osVersion"], offline: row["offline"],
                    timestamp: row["timestamp"], properties: properties)
                let duplicate = eventID.map { !seen.insert($0).inserted } ?? false
                events.append(
                    Received(
                        event: event, eventID: eventID, requestUserID: row["requestUserId"],
                        receivedAt: row["receivedAt"], duplicate: duplicate))
            }
            let duplicates = events.filter(\.duplicate).count
            return Summary(
                received: events.count, unique: events.count - duplicates, duplicates: duplicates, events: events)
        }
    }
}

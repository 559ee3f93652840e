import Foundation
import HTTPTypes
import Hummingbird
import Logging
import TourModel

/// `POST /analytics/events`: the live whitelist (unknown key or name: 400 naming it, for the whole
/// batch), 413 above the body limit, 500 for a tour, point or user id the service does not know (its
/// foreign keys; an empty id counts as none), 204.
struct AnalyticsRoutes: Sendable {
    let services: ServerServices

    func register(on router: Router<ServerContext>) {
        router.post("/analytics/events") { request, _ in try await receive(request) }
    }

    func receive(_ request: Request) async throws -> Response {
        let user = await services.authenticator.optionalUser(request)
        let body = try await services.body(of: request)
        var events = try Self.validate(body, dialect: services.dialect)
        let snapshot = await services.catalog.current()
        let points = Set(snapshot.tours.flatMap { $0.folder.points.map(\.id) })
        var users: [String: Bool] = [:]
        for i in events.indices {
            // An empty id is no id, as live (it connects a relation only when the id is truthy).
            if events[i].tourID == "" { events[i].tourID = nil }
            if events[i].pointID == "" { events[i].pointID = nil }
            if events[i].userID == "" { events[i].userID = nil }
            let event = events[i]
            let unknownTour = event.tourID.flatMap { snapshot.byID[$0] == nil ? $0 : nil }
            let unknownPoint = event.pointID.flatMap { points.contains($0) ? nil : $0 }
            var unknownUser: String?
            if let id = event.userID {
                if users[id] == nil { users[id] = try services.accounts.user(id: id) != nil }
                if users[id] == false { unknownUser = id }
            }
            if unknownTour != nil || unknownPoint != nil || unknownUser != nil {
                services.logger.warning(
                    "analytics batch refused with 500, as live (foreign key)",
                    metadata: [
                        "tourId": "\(unknownTour ?? "-")", "pointId": "\(unknownPoint ?? "-")",
                        "userId": "\(unknownUser ?? "-")",
                    ])
                throw APIError(.internalServerError, "Internal server error")
            }
        }
        if let user {
            for i in events.indices where events[i].userID == nil { events[i].userID = user.id }
        }
        try services.analytics.store(events, requestUserID: user?.id)
        return Response(status: .noContent)
    }

    /// Checks a batch against the whitelist and decodes it; every problem found is in the 400.
    static func validate(_ body: [String: JSONValue], dialect: APIDialect) throws -> [AnalyticsEvent] {
        var v = BodyValidator()
        v.forbidUnknownKeys(body, allowed: ["events"])
        guard case .array(let items)? = body["events"] else {
            v.fail("events must contain at least 1 elements")
            v.fail("events must be an array")
            throw APIError.validation(v.messages)
        }
        if items.isEmpty { v.fail("events must contain at least 1 elements") }
        var events: [AnalyticsEvent] = []
        for (index, item) in items.enumerated() {
            guard case .object(let object) = item else {
                v.fail("each value in nested property events must be either object or array")
                continue
            }
            var e = BodyValidator(prefix: "events.\(index).")
            let event = dialect == .guide ? guideEvent(object, &e) : liveEvent(object, &e)
            for message in e.messages { v.fail(message) }
            if let event, e.messages.isEmpty { events.append(event) }
        }
        guard v.messages.isEmpty else { throw APIError.validation(v.messages) }
        return events
    }

    static func liveEvent(_ o: [String: JSONValue], _ v: inout BodyValidator) -> AnalyticsEvent? {
        v.forbidUnknownKeys(o, allowed: AnalyticsEvent.liveKeys)
        let name = eventName(o, "name", &v)
        var event = AnalyticsEvent(name: name ?? "")
        event.userID = v.optionalString(o, "userId")
        event.anonymousID = v.optionalString(o, "anonymousId")
        event.tourID = v.optionalString(o, "tourId")
        event.pointID = v.optionalString(o, "pointId")
        event.language = v.optionalString(o, "language")
        event.device = v.optionalString(o, "device")
        event.osVersion = v.optionalString(o, "osVersion")
        event.offline = v.optionalBool(o, "offline")
        event.timestamp = timestamp(o, &v)
        event.properties = properties(o, &v)
        return name == nil ? nil : event
    }

    /// The guide's shape: `{eventType, properties: {tourId, pointId, ...}, timestamp?}`.
    static func guideEvent(_ o: [String: JSONValue], _ v: inout BodyValidator) -> AnalyticsEvent? {
        v.forbidUnknownKeys(o, allowed: ["eventType", "properties", "timestamp"])
        let name = eventName(o, "eventType", &v)
        let properties = properties(o, &v)
        let timestamp = timestamp(o, &v)
        guard let name else { return nil }
        return AnalyticsEvent(
            name: name, userID: properties["userId"]?.stringValue,
            anonymousID: properties["anonymousId"]?.stringValue,
            tourID: properties["tourId"]?.stringValue, pointID: properties["pointId"]?.stringValue,
            language: properties["language"]?.stringValue, device: properties["device"]?.stringValue,
            osVersion: properties["osVersion"]?.stringValue, offline: properties["offline"]?.boolValue,
            timestamp: timestamp, properties: properties)
    }

    static func eventName(_ o: [String: JSONValue], _ key: String, _ v: inout BodyValidator) -> String? {
        let oneOf = "\(key) must be one of the following values: \(AnalyticsEvent.names.joined(separator: ", "))"
        guard case .string(let name)? = o[key] else {
            v.fail(oneOf)
            return nil
        }
        guard AnalyticsEvent.names.contains(name) else {
            v.fail(oneOf)
            return nil
        }
        return name
    }

    static func timestamp(_ o: [String: JSONValue], _ v: inout BodyValidator) -> Date? {
        switch o["timestamp"] {
        case nil, .null: return nil
        case .string(let text):
            if let date = liveDate(text) { return date }
            fallthrough
        default:
            v.fail("timestamp must be a valid ISO 8601 date string")
            return nil
        }
    }

    /// Any ISO 8601 date the live validator takes, as its `new Date(text)` reads it: a day
    /// (`2026-05-01`, midnight UTC), or a day and time to the minute, second or fraction, with a zone
    /// (`Z`, `+02:00`, `+0200`) or without one (then UTC, the live servers' own zone).
    static func liveDate(_ text: String) -> Date? {
        if let date = ISO8601.parse(text) { return date }
        let pattern =
            /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/
        guard let m = text.wholeMatch(of: pattern) else { return nil }
        var parts = DateComponents()
        parts.year = Int(m.1)
        parts.month = Int(m.2)
        parts.day = Int(m.3)
        parts.hour = m.4.flatMap { Int($0) } ?? 0
        parts.minute = m.5.flatMap { Int($0) } ?? 0
        parts.second = m.6.flatMap { Int($0) } ?? 0
        var offset = 0
        if let zone = m.8, zone != "Z", zone != "z" {
            let digits = zone.dropFirst().filter(\.isNumber)
            let hours = Int(digits.prefix(2)) ?? 0
            let minutes = digits.count > 2 ? Int(digits.suffix(2)) ?? 0 : 0
            guard hours <= 23, minutes <= 59 else { return nil }
            offset = (hours * 3600 + minutes * 60) * (zone.hasPrefix("-") ? -1 : 1)
        }
        guard let zone = TimeZone(secondsFromGMT: offset) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        parts.timeZone = zone
        // The day and time must exist as written (no 31 April, no hour 24).
        guard parts.isValidDate(in: calendar), let date = calendar.date(from: parts) else { return nil }
        let fraction = m.7.map { Double("0." + $0) ?? 0 } ?? 0
        return date.addingTimeInterval(fraction)
    }

    static func properties(_ o: [String: JSONValue], _ v: inout BodyValidator) -> [String: JSONValue] {
        switch o["properties"] {
        case nil, .null: return [:]
        case .object(let p): return p
        default:
            v.fail("properties must be an object")
            return [:]
        }
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import Logging
import TourModel

/// `POST /analytics/events`: the live whitelist (unknown key or name: 400 naming it, for the whole
/// batch), 413 above the body limit, 500 for ids the service does not know (its foreign keys), 204.
struct AnalyticsRoutes: Sendable {
    let services: ServerServices

    func register(on router: Router<ServerContext>) {
        router.post("/analytics/events") { request, _ in try await receive(request) }
    }

    func receive(_ request: Request) async throws -> Response {
        let user = await services.authenticator.optionalUser(request)
        let body = try await services.body(of: request)
        var events = try Self.validate(body, dialect: services.dialect)
        let snapshot = services.catalog.current()
        let points = Set(snapshot.tours.flatMap { $0.folder.points.map(\.id) })
        for event in events {
            let unknownTour = event.tourID.flatMap { snapshot.byID[$0] == nil ? $0 : nil }
            let unknownPoint = event.pointID.flatMap { points.contains($0) ? nil : $0 }
            if unknownTour != nil || unknownPoint != nil {
                services.logger.warning(
                    "analytics batch refused with 500, as live (foreign key)",
                    metadata: [
                        "tourId": "\(unknownTour ?? "-")", "pointId": "\(unknownPoint ?? "-")",
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
            if let date = ISO8601.parse(text) { return date }
            fallthrough
        default:
            v.fail("timestamp must be a valid ISO 8601 date string")
            return nil
        }
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

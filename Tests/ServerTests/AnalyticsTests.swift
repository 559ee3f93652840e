import Foundation
import NIOHTTP1
import TestSupport
import Testing
import TourModel

/// `POST /analytics/events`: the live whitelist, 204, 400 naming the problem, 413, 500 on unknown
/// ids, and what `events` reports (duplicates by `properties.eventId`).
struct AnalyticsTests {
    static let demo = TourTests.demoID
    static let point = "7c1e0b52-5d0a-4f3e-9a61-0d1f00000002"

    static func event(_ name: String = "point_triggered", id: String = UUID().uuidString) -> AnalyticsEvent {
        AnalyticsEvent(
            name: name, anonymousID: "anon-1", tourID: demo, pointID: point, language: "en",
            device: "Pinephone", osVersion: "Debian 12", offline: false,
            timestamp: ISO8601.parse("2026-05-01T09:00:00.000Z"),
            properties: ["eventId": .string(id), "triggerType": "gps", "platform": "linux"])
    }

    static func body(_ events: [AnalyticsEvent], dialect: APIDialect = .live) throws -> Data {
        try WalkscapeJSON.encode(AnalyticsBatch(events: events), dialect: dialect)
    }

    @Test func aValidBatchIs204AndRetriesAreCountedAsDuplicates() async throws {
        let server = try await ServerProcess.start()
        let http = HTTPTestClient(server)
        let session = try await http.register("ada@example.org")
        let batch = [Self.event("tour_started"), Self.event(), Self.event("tour_completed")]
        let reply = try await http.send(
            .POST, "/analytics/events", token: session.tokens.accessToken, body: try Self.body(batch))
        #expect(reply.status == 204 && reply.body.isEmpty)
        // The same batch again (a retry after a lost answer), anonymously this time.
        #expect(try await http.send(.POST, "/analytics/events", body: try Self.body(batch)).status == 204)

        let events = try server.events()
        #expect(events.received == 6 && events.unique == 3 && events.duplicates == 3)
        #expect(
            events.events.map(\.event.name) == [
                "tour_started", "point_triggered", "tour_completed",
                "tour_started", "point_triggered", "tour_completed",
            ])
        let first = try #require(events.events.first)
        #expect(first.event == batch[0].with(userID: session.user?.id))  // the bearer's user attached
        #expect(first.requestUserID == session.user?.id && !first.duplicate)
        #expect(events.events[3].requestUserID == nil && events.events[3].duplicate)
        #expect(first.eventID == batch[0].eventID)

        let text = try server.admin(["events"]).stdout
        #expect(text.hasPrefix("received 6, unique 3, duplicates 3\n"))
        #expect(text.contains("2026-05-01T09:00:00.000Z  point_triggered  tour=\(Self.demo)"))
        await server.stop()
    }

    @Test func controlCharactersAClientSentAreInertInTheLogAndInEvents() async throws {
        var options = ServerProcess.Options()
        options.logLevel = "info"
        let server = try await ServerProcess.start(options)
        let http = HTTPTestClient(server)
        // An e-mail that would retitle an admin's terminal window (logged at every refresh) is no
        // address: refused at the door.
        let hostile = try await http.post(
            "/auth/register",
            ["email": .string("ada\u{1B}]0;owned\u{07}@example.org"), "password": .string("correct horse battery")])
        #expect(hostile.status == 400, "\(hostile.text)")
        let session = try await http.register("ada@example.org")
        let refreshed = try await http.post(
            "/auth/refresh", ["refreshToken": .string(try #require(session.tokens.refreshToken))])
        #expect(refreshed.status == 201, "\(refreshed.text)")
        var event = Self.event()
        event.anonymousID = "anon\u{1B}[2J"
        let reply = try await http.send(.POST, "/analytics/events", body: try Self.body([event]))
        #expect(reply.status == 204, "\(reply.text)")

        let log = server.log
        #expect(log.contains("token refreshed"), "\(log)")
        #expect(!log.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, "\(log.debugDescription)")
        let text = try server.admin(["events"]).stdout
        #expect(!text.unicodeScalars.contains { $0 == "\u{1B}" }, "\(text.debugDescription)")
        #expect(text.contains("anonymous=anon\u{FFFD}[2J"), "\(text)")
        let json = try server.admin(["events", "--json"]).stdout
        #expect(!json.unicodeScalars.contains { $0 == "\u{1B}" })
        #expect(json.contains("anon\\u001b[2J") || json.contains("anon\\u001B[2J"), "\(json)")

        // A newline (or a line separator) in a client's string does not forge a line of its own.
        var forged = Self.event()
        forged.anonymousID = "anon\n2026-11-26T09:00:00.000Z  tour_completed  anonymous=victim\u{2028}x"
        let forging = try await http.send(.POST, "/analytics/events", body: try Self.body([forged]))
        #expect(forging.status == 204, "\(forging.text)")
        let lines = try server.admin(["events"]).stdout.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("2026-11-26T09:00:00.000Z") }, "\(lines)")
        #expect(lines.contains { $0.contains("anonymous=anon\u{FFFD}2026-11-26T09:00:00.000Z") }, "\(lines)")
        #expect(!lines.joined().unicodeScalars.contains { $0 == "\u{2028}" })
        await server.stop()
    }

    @Test func anUnknownKeyOrNameRefusesTheWholeBatchNamingIt() async throws {
        let server = try await ServerProcess.start()
        let http = HTTPTestClient(server)
        let raw = """
            {"events":[{"name":"app_open"},
                       {"eventType":"app_open","properties":{}},
                       {"name":"app_closed","offline":"yes","timestamp":"yesterday","properties":[1]}],
             "batchId":"b1"}
            """
        let reply = try await http.post("/analytics/events", raw: raw)
        #expect(reply.status == 400)
        let error = try #require(reply.error)
        let names = AnalyticsEvent.names.joined(separator: ", ")
        #expect(error.messageIsList)
        #expect(
            Set(error.messages) == [
                "property batchId should not exist",
                "events.1.property eventType should not exist",
                "events.1.name must be one of the following values: \(names)",
                "events.2.name must be one of the following values: \(names)",
                "events.2.offline must be a boolean value",
                "events.2.timestamp must be a valid ISO 8601 date string",
                "events.2.properties must be an object",
            ])
        let empty = try await http.post("/analytics/events", ["events": []])
        #expect(empty.status == 400 && empty.error?.messages == ["events must contain at least 1 elements"])
        let none = try await http.post("/analytics/events", [:])
        #expect(none.status == 400 && none.error?.messages.contains("events must be an array") == true)
        #expect(try server.events().received == 0)
        await server.stop()
    }

    @Test func unknownTourOrPointIdsAre500AsLiveAndNothingIsStored() async throws {
        let server = try await ServerProcess.start()
        let http = HTTPTestClient(server)
        var unknownTour = Self.event()
        unknownTour.tourID = "not-a-tour"
        var unknownPoint = Self.event()
        unknownPoint.pointID = "not-a-point"
        for bad in [unknownTour, unknownPoint] {
            let reply = try await http.send(.POST, "/analytics/events", body: try Self.body([Self.event(), bad]))
            #expect(reply.status == 500)
            #expect(reply.error?.statusCode == 500 && reply.error?.messages == ["Internal server error"])
        }
        #expect(try server.events().received == 0)
        await server.stop()
    }

    @Test func aBatchOverTheBodyLimitIs413InTheLiveShape() async throws {
        let server = try await ServerProcess.start()
        let http = HTTPTestClient(server)
        let big = (0..<400).map { _ in Self.event() }  // about 160 kB
        let body = try Self.body(big)
        #expect(body.count > 100 * 1024)
        let reply = try await http.send(.POST, "/analytics/events", body: body)
        #expect(reply.status == 413)
        #expect(
            reply.error
                == APIErrorBody(
                    statusCode: 413, messages: ["request entity too large"], error: "Payload Too Large",
                    messageIsList: false))
        // Split in two, it goes through.
        #expect(try await http.send(.POST, "/analytics/events", body: try Self.body(Array(big[..<200]))).status == 204)
        #expect(try await http.send(.POST, "/analytics/events", body: try Self.body(Array(big[200...]))).status == 204)
        #expect(try server.events().unique == 400)
        await server.stop()
    }
}

extension AnalyticsEvent {
    func with(userID: String?) -> AnalyticsEvent {
        var copy = self
        copy.userID = userID
        return copy
    }
}

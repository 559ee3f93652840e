import Foundation
import TestSupport
import Testing
import TourModel

@testable import WalkscapeServer

/// Where the server was kinder than the live service, so that a client tested against it could fail
/// live: each answer below is the live backend's (docs/server.md, "The API").
struct LiveParityTests {
    /// A folder with no city, duration, distance or difficulty.
    static func bareTour() throws -> (TemporaryDirectory, TourFixture) {
        let dir = try TemporaryDirectory()
        let tour = TourFixture(slug: "bare")
        let manifest = try tour.write(in: dir.url).appendingPathComponent("tour.json")
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifest)) as? [String: Any])
        for key in ["city", "difficulty", "durationMinutes", "distanceKm"] { json[key] = nil }
        try JSONSerialization.data(withJSONObject: json).write(to: manifest)
        return (dir, tour)
    }

    @Test func whatAFolderLeavesOutIsNeverNullAndTheListLeavesOutWhatNoLanguageHas() async throws {
        let (dir, tour) = try Self.bareTour()
        try await InProcessServer.test(.init(tours: [dir.url])) { http in
            let list = try await http.get("/tours")
            let summary = try #require(list.json.arrayValue?.first?.objectValue)
            #expect(summary["difficulty"] == "facile" && summary["city"] == "")
            #expect(summary["durationMinutes"] == 0 && summary["distanceKm"] == 0)
            // Nothing for busInfo in any language: the key is absent, not null.
            #expect(summary.keys.contains("busInfo") == false)
            let detail = try await http.get("/tours/\(tour.id)?language=en")
            #expect(detail.json["difficulty"] == "facile" && detail.json["city"] == "")
            #expect(detail.json["durationMinutes"] == 0 && detail.json["distanceKm"] == 0)
        }
        // The client reads them back as the values they are.
        try await InProcessServer.test(.init(tours: [dir.url])) { http in
            let tours: [TourSummary] = try await http.get("/tours").decode()
            #expect(tours.first?.difficulty == "facile" && tours.first?.busInfo.isEmpty == true)
        }
    }

    @Test func hasAccessSaysWhetherTheUserHoldsAGrantNotWhetherTheTourIsFree() async throws {
        let (dir, tour) = try Self.bareTour()
        try await InProcessServer.test(.init(tours: [dir.url])) { http in
            #expect(try await http.get("/tours/\(tour.id)?language=en").json["hasAccess"] == false)
            let session = try await http.register("ada@example.org")
            let token = session.tokens.accessToken
            let list = try await http.get("/tours", token: token)
            #expect(list.json.arrayValue?.first?["hasAccess"] == false)
            #expect(try await http.get("/tours/\(tour.id)?language=en", token: token).json["hasAccess"] == false)
            // A free tour's content is open all the same.
            #expect(try await http.get("/tours/\(tour.id)/manifest?language=en").status == 200)
        }
    }

    @Test func aJSONBodyWithoutAContentTypeIsNotRead() async throws {
        try await InProcessServer.test { http in
            let body = #"{"email":"ada@example.org","password":"correct horse battery"}"#
            let bare = try await http.post("/auth/register", raw: body, contentType: nil)
            #expect(bare.status == 400)
            #expect(bare.error?.messages.contains("email must be an email") == true, "\(bare.body)")
            let events = try await http.post(
                "/analytics/events", raw: #"{"events":[{"name":"app_open"}]}"#, contentType: nil)
            #expect(events.status == 400)
            #expect(try await http.post("/auth/register", raw: body).status == 201)
        }
    }

    @Test func analyticsIdsAreTheServicesForeignKeysAndAnEmptyIdIsNone() async throws {
        try await InProcessServer.test { http in
            let session = try await http.register("ada@example.org")
            let me = try await http.get("/auth/me", token: session.tokens.accessToken)
            let userID = try #require(me.json["id"]?.stringValue)
            func send(_ event: JSONValue) async throws -> Int {
                try await http.post("/analytics/events", ["events": .array([event])]).status
            }
            #expect(try await send(["name": "app_open", "userId": .string(userID)]) == 204)
            #expect(try await send(["name": "app_open", "userId": "00000000-0000-4000-8000-000000000000"]) == 500)
            #expect(try await send(["name": "tour_viewed", "tourId": "", "pointId": ""]) == 204)
            #expect(try await send(["name": "tour_viewed", "tourId": "no-such-tour"]) == 500)
        }
    }

    @Test func anyISO8601DateTheLiveValidatorTakesIsATimestamp() async throws {
        let utc = { (text: String) in AnalyticsRoutes.liveDate(text)?.timeIntervalSince1970 }
        #expect(utc("2026-05-01T09:00:00.000Z") == 1_777_626_000)
        #expect(utc("2026-05-01T09:00:00") == 1_777_626_000)
        #expect(utc("2026-05-01T09:00") == 1_777_626_000)
        #expect(utc("2026-05-01T11:00:00+02:00") == 1_777_626_000)
        #expect(utc("2026-05-01T11:00:00+0200") == 1_777_626_000)
        #expect(utc("2026-05-01T08:00-01") == 1_777_626_000)
        #expect(utc("2026-05-01") == 1_777_593_600)
        #expect(utc("2026-05-01T09:00:00.250") == 1_777_626_000.25)
        for bad in ["2026-02-30", "2026-05-01T24:00:00", "2026-05-01T09:00:00+25:00", "yesterday", "2026-5-1", ""] {
            #expect(utc(bad) == nil, "\(bad)")
        }
        try await InProcessServer.test { http in
            let reply = try await http.post(
                "/analytics/events", ["events": [["name": "app_open", "timestamp": "2026-05-01T09:00:00"]]])
            #expect(reply.status == 204)
            let bad = try await http.post(
                "/analytics/events", ["events": [["name": "app_open", "timestamp": "2026-02-30T09:00:00"]]])
            #expect(bad.error?.messages == ["events.0.timestamp must be a valid ISO 8601 date string"])
        }
    }
}

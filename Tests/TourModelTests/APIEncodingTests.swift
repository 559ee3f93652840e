import Foundation
import Testing

@testable import TourModel

/// The wire shapes written in each dialect decode back to the same values (client and server agree by
/// construction), and the live shapes carry exactly the contract's keys.
struct APIEncodingTests {
    func roundTrip<T: APIEncodable & Decodable>(_ value: T, _ dialect: APIDialect) throws -> T {
        try WalkscapeJSON.decoder().decode(T.self, from: WalkscapeJSON.encode(value, dialect: dialect))
    }

    func object(_ value: some APIEncodable, _ dialect: APIDialect) throws -> [String: JSONValue] {
        try #require(
            try JSONDecoder().decode(JSONValue.self, from: WalkscapeJSON.encode(value, dialect: dialect)).objectValue)
    }

    static let signed =
        "http://127.0.0.1:8080/media/t1/media/en/01.mp3?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20260501T090000Z&X-Amz-Expires=86400&X-Amz-Signature=ab"
    static let summary = TourSummary(
        id: "t1", slug: "bologna", title: ["en": "Porticoes", "it": "Portici"],
        descriptionPreview: ["en": "Short", "it": "Breve"], completionMessage: ["en": "Thanks"], busInfo: [:],
        city: "Bologna", durationMinutes: 25, distanceKm: 1.4, difficulty: "easy", languages: ["en", "it"],
        isProtected: true, hasAccess: false, imageURL: signed,
        route: [Coordinate(latitude: 44.4939, longitude: 11.3426), Coordinate(latitude: 44.4945, longitude: 11.346)])

    @Test func tourSummaryLiveRoundTripsWithTheContractsKeys() throws {
        #expect(try roundTrip(Self.summary, .live) == Self.summary)
        let keys = Set(try object(Self.summary, .live).keys)
        // No language has bus information: the key is absent, as live sends it (not null).
        #expect(
            keys == [
                "id", "slug", "title", "descriptionPreview", "completionMessage", "city",
                "durationMinutes", "distanceKm", "difficulty", "languages", "isProtected", "imageUrl",
                "coverTrailerUrl", "routePolyline", "hasAccess",
            ])
        var anonymous = Self.summary
        anonymous.hasAccess = nil
        #expect(try object(anonymous, .live)["hasAccess"] == nil)  // only when authenticated
        #expect(try roundTrip(anonymous, .live).hasAccess == nil)
    }

    @Test func tourSummaryGuideKeepsWhatTheGuideCarries() throws {
        let back = try roundTrip(Self.summary, .guide)
        #expect(back.id == "t1" && back.slug == "bologna" && back.isProtected && back.hasAccess == false)
        #expect(back.title == Self.summary.title && back.descriptionPreview == Self.summary.descriptionPreview)
        #expect(back.languages == ["en", "it"] && back.city == "Bologna" && back.distanceKm == 1.4)
        #expect(back.imageURL == Self.signed)
        let versions = try #require(try object(Self.summary, .guide)["versions"]?.arrayValue)
        #expect(
            versions.count == 2 && versions[0]["language"] == "en"
                && versions[0]["coverImageUrl"] == .string(Self.signed))
    }

    static let detail = TourDetail(
        id: "t1", slug: "bologna", language: "en", title: "Porticoes", description: "Long text",
        completionMessage: "Thanks", busInfo: nil, city: "Bologna", durationMinutes: 25, distanceKm: 1.4,
        difficulty: "easy", languages: ["en", "it"], isProtected: false, hasAccess: true, imageURL: nil,
        startingPoint: Coordinate(latitude: 44.4939, longitude: 11.3426), route: summary.route, pointCount: 5)

    @Test func tourDetailRoundTripsInBothDialects() throws {
        var live = Self.detail
        live.language = nil  // the live detail does not name its language
        live.pointCount = nil  // nor count its points
        #expect(try roundTrip(Self.detail, .live) == live)
        let o = try object(Self.detail, .live)
        #expect(o["downloadInfo"] != nil && o["busInfo"] == .null)
        var noStart = Self.detail
        noStart.startingPoint = nil
        #expect(try object(noStart, .live)["startingPoint"] == ["lat": nil, "lng": nil])
        #expect(try roundTrip(noStart, .live).startingPoint == nil)

        let guide = try roundTrip(Self.detail, .guide)
        #expect(guide.title == "Porticoes" && guide.description == "Long text" && guide.language == "en")
        #expect(guide.startingPoint == Self.detail.startingPoint && guide.pointCount == 5 && guide.hasAccess == true)
        #expect(try object(Self.detail, .guide)["version"]?["title"] == "Porticoes")
    }

    @Test func pointsRoundTripInBothDialects() throws {
        let point = TourPoint(
            id: "p1", order: 1, coordinate: Coordinate(latitude: 44.4939, longitude: 11.3426),
            triggerRadiusMeters: 30, title: "Piazza", description: "Where it starts",
            audioURL: Self.signed, imageURL: nil)
        var live = point
        live.audioURL = nil  // the live points carry no media
        #expect(try roundTrip(point, .live) == live)
        #expect(
            Set(try object(point, .live).keys) == [
                "id", "order", "title", "description", "location", "triggerRadiusMeters",
            ])
        #expect(try roundTrip(point, .guide) == point)
        #expect(try object(point, .guide)["localization"]?["contentText"] == "Where it starts")
    }

    @Test func manifestRoundTripsInBothDialects() throws {
        let manifest = TourManifest(
            tourID: "t1", language: "en", version: "3",
            audio: [MediaFile(pointID: "p1", order: 1, url: Self.signed, sizeBytes: 108_250)],
            images: [MediaFile(pointID: "p1", url: Self.signed + "i", sizeBytes: 999)],
            subtitles: [MediaFile(pointID: "p1", language: "en", url: Self.signed + "s", sizeBytes: 512)],
            offlineMap: OfflineMap(
                tilesURLTemplate: "https://tiles.walkscape.invalid/{z}/{x}/{y}.png",
                bounds: .init(north: 44.5, south: 44.4, east: 11.4, west: 11.3), recommendedZoomLevels: [14, 15]))
        #expect(try roundTrip(manifest, .live) == manifest)
        #expect(try roundTrip(manifest, .guide) == manifest)
        let live = try object(manifest, .live)
        #expect(live["version"] == 3)  // a number, as both dialects send it
        #expect(
            Set(try #require(live["audio"]?.arrayValue?.first?.objectValue).keys) == [
                "pointId", "order", "fileUrl", "fileSizeBytes",
            ])
        #expect(
            Set(try #require(live["subtitles"]?.arrayValue?.first?.objectValue).keys) == [
                "pointId", "language", "fileUrl", "fileSizeBytes",
            ])
        let guide = try object(manifest, .guide)
        #expect(
            Set(try #require(guide["images"]?.arrayValue?.first?.objectValue).keys) == [
                "pointId", "url", "sizeBytes", "expiresAt",
            ])
        #expect(guide["images"]?.arrayValue?.first?["expiresAt"] == "2026-05-02T09:00:00.000Z")
    }

    @Test func authShapesRoundTrip() throws {
        let jwt = APIDialectTests.jwt
        let user = UserProfile(
            id: "u1", email: "a@b.c", name: nil, preferredLanguage: "en", mailingListOptIn: false,
            createdAt: Date(timeIntervalSince1970: 1_777_626_000.5),
            updatedAt: Date(timeIntervalSince1970: 1_777_626_000.5))
        let session = AuthSession(user: user, tokens: AuthTokens(accessToken: jwt, refreshToken: "r1"))
        for dialect in APIDialect.allCases {
            #expect(try roundTrip(session, dialect) == session)
        }
        let o = try object(session, .live)
        #expect(o["tokens"] == ["accessToken": .string(jwt), "refreshToken": "r1"])  // the pair only, no stored expiry
        #expect(o["user"]?["name"] == .null)
        #expect(try roundTrip(user, .live) == user)
        #expect(try roundTrip(session.tokens, .live) == session.tokens)
    }

    @Test func voucherShapesRoundTrip() throws {
        let redemption = VoucherRedemption(
            success: true, message: "Voucher redeemed successfully", tourID: "t9",
            tourTitle: "Secret Walk", tourSlug: "secret", code: "PREMIUM",
            validUntil: Date(timeIntervalSince1970: 1_798_761_599))
        var live = redemption
        live.tourSlug = nil; live.code = nil; live.validUntil = nil  // the live answer names the tour only
        #expect(try roundTrip(redemption, .live) == live)
        #expect(Set(try object(redemption, .live).keys) == ["success", "message", "tourId", "tourTitle"])
        var guide = redemption
        guide.message = nil
        #expect(try roundTrip(redemption, .guide) == guide)

        let granted = GrantedTours(tours: [
            .init(
                tourID: "t9", tourTitle: "Secret Walk", tourSlug: "secret",
                grantedAt: Date(timeIntervalSince1970: 1_777_626_000))
        ])
        #expect(try roundTrip(granted, .live) == granted)
    }

    @Test func errorBodyKeepsStringOrArray() throws {
        let one = APIErrorBody(statusCode: 404, messages: ["Tour not found"], error: "Not Found", messageIsList: false)
        let list = APIErrorBody(
            statusCode: 400, messages: ["property foo should not exist"], error: "Bad Request", messageIsList: true)
        #expect(try roundTrip(one, .live) == one)
        #expect(try roundTrip(list, .live) == list)
        #expect(try object(one, .live)["message"] == "Tour not found")
        #expect(try object(list, .live)["message"] == ["property foo should not exist"])
    }

    @Test func healthRoundTrips() throws {
        let health = HealthStatus(status: "ok", details: ["database": ["status": "up"]])
        #expect(try roundTrip(health, .live) == health)
        #expect(try object(health, .live)["info"] == ["database": ["status": "up"]])
    }

    @Test func analyticsEventsRoundTripInBothDialects() throws {
        let event = AnalyticsEvent(
            name: "point_triggered", userID: nil, anonymousID: "anon-1", tourID: "t1",
            pointID: "p1", language: "en", device: "Pinephone", osVersion: "Debian 12",
            offline: true, timestamp: Date(timeIntervalSince1970: 1_777_626_000.25),
            properties: ["eventId": "e-1", "triggerType": "gps", "platform": "linux"])
        let batch = AnalyticsBatch(events: [event])
        #expect(try roundTrip(batch, .live) == batch)
        let live = try #require(try object(batch, .live)["events"]?.arrayValue?.first?.objectValue)
        #expect(Set(live.keys).isSubset(of: Set(AnalyticsEvent.liveKeys)))
        #expect(live["timestamp"] == "2026-05-01T09:00:00.250Z")

        let guideBatch = try roundTrip(batch, .guide)
        #expect(
            guideBatch.events[0].tourID == "t1" && guideBatch.events[0].pointID == "p1"
                && guideBatch.events[0].offline == true)
        #expect(guideBatch.events[0].eventID == "e-1" && guideBatch.events[0].name == "point_triggered")
        let guide = try #require(try object(batch, .guide)["events"]?.arrayValue?.first?.objectValue)
        #expect(Set(guide.keys) == ["eventType", "properties", "timestamp"])
        #expect(guide["properties"]?["tourId"] == "t1")
    }

    @Test func jsonValueKeepsBooleansApartFromNumbers() throws {
        let value = try JSONDecoder().decode(
            JSONValue.self, from: Data(#"{"a":true,"b":1,"c":0,"d":"x","e":null,"f":[1.5]}"#.utf8))
        #expect(value == ["a": true, "b": 1, "c": 0, "d": "x", "e": nil, "f": [1.5]])
    }
}

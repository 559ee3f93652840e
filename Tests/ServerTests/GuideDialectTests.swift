import Foundation
import NIOHTTP1
import TestSupport
import Testing
import TourModel

/// `--dialect guide`: the published guide's shapes, which the shared decoders read as well as the live ones.
struct GuideDialectTests {
    @Test func everyEndpointAnswersInTheGuidesShapes() async throws {
        let dir = try TemporaryDirectory()
        let fixture = TourFixture(slug: "guide-walk", isProtected: true, languages: ["en", "it"], images: true)
        try fixture.write(in: dir.url)
        let server = try await ServerProcess.start(.init(tours: [dir.url], dialect: "guide"))
        let http = HTTPTestClient(server)
        let session = try await http.register("ada@example.org")
        let token = session.tokens.accessToken
        try server.addVoucher("GUIDE", tour: fixture.id, validUntil: "2099-12-31")

        let list = try await http.get("/tours", token: token)
        let versions = try #require(list.json.arrayValue?.first?["versions"]?.arrayValue)
        #expect(versions.count == 2 && versions[0]["language"] == "en" && versions[0]["title"] == "guide-walk (en)")
        #expect(list.json.arrayValue?.first?["hasAccess"] == false)
        #expect(try list.decode([TourSummary].self).first?.languages == ["en", "it"])

        let detail = try await http.get("/tours/\(fixture.id)?language=it")
        #expect(detail.json["version"]?["title"] == "guide-walk (it)" && detail.json["pointCount"] == 2)
        #expect(try detail.decode(TourDetail.self).title == "guide-walk (it)")

        let redeemed = try await http.post("/vouchers/validate", ["code": "guide"], token: token)
        #expect(redeemed.status == 201)
        #expect(redeemed.json["accessGranted"] == true && redeemed.json["voucher"]?["code"] == "GUIDE")
        #expect(redeemed.json["voucher"]?["validUntil"]?.stringValue?.hasPrefix("2099-12-31T23:59:59") == true)
        #expect(redeemed.json["tour"]?["slug"] == "guide-walk")
        #expect(try redeemed.decode(VoucherRedemption.self).tourID == fixture.id)

        let points = try await http.get("/tours/\(fixture.id)/points?language=en", token: token)
        let first = try #require(points.json.arrayValue?.first)
        #expect(first["lat"] != nil && first["localization"]?["contentText"] == "Text 1 in en.")
        let decoded: [TourPoint] = try points.decode()
        let audio = try #require(decoded.first?.audioURL)
        #expect(try await http.get(audio).status == 200)
        #expect(decoded.first?.imageURL != nil)

        let manifest = try await http.get("/tours/\(fixture.id)/manifest?language=en", token: token)
        let file = try #require(manifest.json["audio"]?.arrayValue?.first?.objectValue)
        #expect(Set(file.keys) == ["pointId", "order", "url", "sizeBytes", "expiresAt"])
        let m: TourManifest = try manifest.decode()
        #expect(m.audio.first?.sizeBytes == 4096 && m.expiresAt != nil)

        // Analytics in the guide's shape are accepted; the live shape is not.
        let guideEvent =
            #"{"events":[{"eventType":"point_triggered","properties":{"tourId":"\#(fixture.id)","pointId":"\#(fixture.pointID(order: 1))","offline":true,"eventId":"g1"}}]}"#
        #expect(try await http.post("/analytics/events", raw: guideEvent).status == 204)
        let liveEvent = #"{"events":[{"name":"app_open"}]}"#
        let refused = try await http.post("/analytics/events", raw: liveEvent)
        #expect(
            refused.status == 400 && refused.error?.messages.contains("events.0.property name should not exist") == true
        )
        let stored = try #require(try server.events().events.first)
        #expect(
            stored.event.name == "point_triggered" && stored.event.tourID == fixture.id && stored.event.offline == true)
        #expect(stored.eventID == "g1")
        await server.stop()
    }
}

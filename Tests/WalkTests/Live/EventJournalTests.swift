import Foundation
import TestSupport
import Testing
import TourModel
import Walk
import WalkRuntime

/// The journal holds the walk's events and the account commands' side by side, each line in the
/// live shape with only the contract's keys.
struct EventJournalTests {
    @Test func walkAndAccountEventsShareTheJournalInTheLiveShape() throws {
        let home = try TemporaryDirectory()
        let journal = EventJournal(url: home.file("state/outbox.jsonl"))
        let time = Date(timeIntervalSince1970: 1_800_000_000)
        try journal.append(AnalyticsEvent(name: "login", userID: "u-1", timestamp: time))
        try journal.append(
            WalkEvent(
                name: .tourCompleted, tourID: "t-1", language: "it", timestamp: time,
                properties: ["pointsVisited": .int(3), "durationMinutes": .double(12.5)]))
        try journal.append(AnalyticsEvent(name: "voucher_redeemed", userID: "u-1", tourID: "t-9", timestamp: time))

        #expect(journal.events().map(\.name) == ["login", "tour_completed", "voucher_redeemed"])
        #expect(journal.events().last?.tourID == "t-9")
        // The walk's own reader sees the walk's events only, with their values as they were.
        let walk = journal.read()
        #expect(walk.map(\.name) == [.tourCompleted])
        #expect(walk.first?.properties["pointsVisited"] == .int(3))
        #expect(walk.first?.properties["durationMinutes"] == .double(12.5))

        let lines = try String(contentsOf: journal.url, encoding: .utf8).split(separator: "\n")
        let whitelist: Set<String> = Set(AnalyticsEvent.liveKeys)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(Set(object.keys).isSubset(of: whitelist), "\(line)")
            let properties = try #require(object["properties"] as? [String: Any])
            #expect(properties["platform"] as? String == "linux")
            #expect((properties["eventId"] as? String).flatMap(UUID.init(uuidString:)) != nil)
        }
        #expect(
            lines[0]
                == #"{"name":"login","properties":{"eventId":"\#((try #require(journal.events()[0].properties["eventId"]?.stringValue)))","platform":"linux"},"timestamp":"2027-01-15T08:00:00.000Z","userId":"u-1"}"#
        )
    }
}

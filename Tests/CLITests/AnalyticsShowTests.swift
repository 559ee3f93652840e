import Foundation
import TestSupport
import Testing
import TourModel

/// `walkscape analytics show` streams what the outbox holds: every event once, oldest first, the
/// JSON one array however long (it is written a piece at a time past 64 kB).
struct AnalyticsShowTests {
    @Test func aLongOutboxIsShownWholeInOrderAsOneArrayAndAsLines() throws {
        let home = try TemporaryDirectory()
        // The old journal, imported into the outbox at the first command: 1,500 events (about
        // 600 kB of JSON shown, so the array is written in several pieces).
        let ids = (0..<1500).map { _ in UUID().uuidString.lowercased() }
        let lines = try ids.enumerated().map { n, id in
            let event = AnalyticsEvent(
                name: "login", anonymousID: "journal",
                timestamp: Date(timeIntervalSince1970: 1_800_000_000 + Double(n)),
                properties: ["eventId": .string(id), "platform": "linux", "n": .number(Double(n))])
            return String(decoding: try WalkscapeJSON.encode(event, dialect: .live), as: UTF8.self) + "\n"
        }
        try home.write("state/outbox.jsonl", lines.joined())
        let json = try runWalkscape(["analytics", "show", "--json"], home: home)
        #expect(json.status == 0, "\(json.stderr)")
        let shown = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [[String: Any]])
        #expect(shown.compactMap { ($0["properties"] as? [String: Any])?["eventId"] as? String } == ids)
        #expect(json.stdout.hasPrefix("[\n  {\n    \"anonymousId\" : \"journal\",\n") && json.stdout.hasSuffix("\n]\n"))
        let text = try runWalkscape(["analytics", "show"], home: home)
        let rows = text.stdout.split(separator: "\n")
        #expect(rows.count == 1500 && rows.allSatisfy { $0.contains("  login") })
        #expect(rows.first?.hasPrefix(ISO8601.format(Date(timeIntervalSince1970: 1_800_000_000))) == true)
        let empty = try TemporaryDirectory()
        #expect(try runWalkscape(["analytics", "show", "--json"], home: empty).stdout == "[\n\n]\n")
        #expect(try runWalkscape(["analytics", "show"], home: empty).stdout == "No analytics events are kept here.\n")
    }
}

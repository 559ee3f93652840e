import Analytics
import Foundation
import TestSupport
import Testing
import TourModel

/// The journal walkscape kept before the outbox (`state/outbox.jsonl`) comes into the outbox
/// whole, once, whatever it looks like.
@Suite struct JournalImportTests {
    typealias F = OutboxFixtures

    func line(_ n: Int) throws -> String {
        String(decoding: try WalkscapeJSON.encode(F.event(n)), as: UTF8.self)
    }

    func importer(_ home: TemporaryDirectory, _ outbox: Outbox) -> JournalImport {
        JournalImport(journal: home.file("state/outbox.jsonl"), outbox: outbox) {
            $0.name == "tour_started" ? .local : .service(F.service)
        }
    }

    @Test func everyWholeLineIsImportedInOrderAndATornLastLineIsKeptAside() throws {
        let home = try TemporaryDirectory()
        let torn = String(try line(4).prefix(40))
        try home.write("state/outbox.jsonl", [try line(1), try line(2), try line(3), torn].joined(separator: "\n"))
        let outbox = try F.outbox(home)
        let report = try #require(try importer(home, outbox).run())
        #expect(report.read == 3 && report.imported == 3)
        #expect(
            try outbox.pending(for: F.service, limits: BatchLimits()).map(\.eventID)
                == (1...3).map { F.event($0).eventID! })
        #expect(!FileManager.default.fileExists(atPath: home.file("state/outbox.jsonl").path))
        let kept = try #require(report.keptAside)
        #expect(
            try String(contentsOf: kept, encoding: .utf8)
                == [try line(1), try line(2), try line(3), torn].joined(separator: "\n"))
    }

    @Test func aLineCutShortAndGluedToTheNextStillGivesTheNextEvent() throws {
        let home = try TemporaryDirectory()
        try home.write("state/outbox.jsonl", try line(1) + "\n" + String(try line(2).prefix(30)) + (try line(3)) + "\n")
        let outbox = try F.outbox(home)
        let report = try #require(try importer(home, outbox).run())
        #expect(report.imported == 2)
        #expect(
            try outbox.pending(for: F.service, limits: BatchLimits()).map(\.eventID) == [
                F.event(1).eventID!, F.event(3).eventID!,
            ])
    }

    @Test func importingTheSameJournalAgainAddsNothingEvenAfterItsEventsWereSent() throws {
        let home = try TemporaryDirectory()
        let text = try (1...3).map(line).joined(separator: "\n") + "\n"
        try home.write("state/outbox.jsonl", text)
        let outbox = try F.outbox(home)
        #expect(try importer(home, outbox).run()?.imported == 3)
        try outbox.markSent(try outbox.pending(for: F.service, limits: BatchLimits()), at: Date())
        // A kill between the import's commit and the journal's removal leaves it in place.
        try home.write("state/outbox.jsonl", text)
        #expect(try importer(home, outbox).run()?.imported == 0)
        #expect(try outbox.summary(for: F.service).waiting == 0)
        #expect(try importer(home, outbox).run() == nil)
    }

    @Test func linesWithoutAnIdGetTheSameIdEveryTimeTheyAreRead() throws {
        let home = try TemporaryDirectory()
        let bare = #"{"name":"login","timestamp":"2026-05-01T09:00:00.000Z","userId":"u-1"}"#
        try home.write("state/outbox.jsonl", bare + "\n")
        let outbox = try F.outbox(home)
        #expect(try importer(home, outbox).run()?.imported == 1)
        try home.write("state/outbox.jsonl", bare + "\n")
        #expect(try importer(home, outbox).run()?.imported == 0)
        let id = try #require(try outbox.entries().first?.event.eventID)
        #expect(UUID(uuidString: id) != nil)
    }

    @Test func theOriginOfEachEventIsDecidedByTheCaller() throws {
        let home = try TemporaryDirectory()
        try home.write(
            "state/outbox.jsonl",
            try line(1) + "\n"
                + String(decoding: try WalkscapeJSON.encode(F.event(2, name: "tour_started")), as: UTF8.self) + "\n")
        let outbox = try F.outbox(home)
        _ = try importer(home, outbox).run()
        #expect(try outbox.entries().map(\.state) == [.waiting, .local])
    }
}

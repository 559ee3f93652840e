import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing
import TourModel

@testable import Analytics

@Suite struct OutboxTests {
    typealias F = OutboxFixtures

    /// Recorded means on disk: each commit syncs the write-ahead log (`synchronous = FULL`), so a
    /// power cut keeps the event. GRDB sets NORMAL when it turns WAL on (synced only at the next
    /// checkpoint, which a kill survives and a power cut does not), after the connection's own set-up.
    @Test func everyCommitIsSyncedToDiskInWriteAheadLogMode() throws {
        let home = try TemporaryDirectory()
        // Made, then opened again as every later command finds it.
        for outbox in [
            try F.outbox(home), try #require(try Outbox.openIfPresent(at: home.file("state/analytics.sqlite"))),
        ] {
            // The writing connection: the one that commits.
            let (journal, synchronous) = try outbox.database.writeWithoutTransaction { db in
                (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"))
            }
            #expect(journal == "wal")
            #expect(synchronous == 2, "PRAGMA synchronous is \(synchronous.map(String.init) ?? "nil") (2 is FULL)")
        }
    }

    /// A read goes on beside a commit under way (a sender reads its next batches while the ones
    /// before are committed, and a commit can wait for the disk or a checkpoint): reads have
    /// connections of their own.
    @Test func aReadDoesNotWaitForACommitUnderWay() throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...10)
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        // Whether the writer was still holding its transaction open, waiting to be let go, when
        // it was let go (false: it gave up waiting, so the read may have waited for it).
        let heldUntilReleased = Mutex<Bool?>(nil)
        let writer = Thread {
            _ = try? outbox.write("hold a transaction open") { db in
                try db.execute(sql: "INSERT OR REPLACE INTO note (key, value) VALUES ('held', 'yes')")
                inside.signal()
                let released = release.wait(timeout: .now() + 5) == .success
                heldUntilReleased.withLock { $0 = released }
            }
        }
        writer.start()
        try #require(inside.wait(timeout: .now() + 10) == .success, "the writer never began its transaction")
        let pending = try outbox.pending(for: F.service, limits: BatchLimits())
        release.signal()
        #expect(pending.count == 10)
        let until = Date() + 10
        while heldUntilReleased.withLock({ $0 }) == nil, Date() < until { Thread.sleep(forTimeInterval: 0.01) }
        #expect(heldUntilReleased.withLock { $0 } == true, "the read waited for the transaction under way to end")
    }

    @Test func eventsComeBackInTheOrderTheyWereRecordedWithTheirIdsAndNothingElse() throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...5)
        let pending = try outbox.pending(for: F.service, limits: BatchLimits())
        #expect(
            pending.map(\.event)
                == (1...5).map {
                    var e = F.event($0); e.offline = false; return e
                })
        #expect(pending.map(\.eventID) == (1...5).map { F.event($0).eventID! })
        // The file is private: which tours someone walked is nobody else's business.
        let mode =
            try FileManager.default.attributesOfItem(atPath: home.file("state/analytics.sqlite").path)[
                .posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aPendingEventIsTheStoredJSONWithOfflineAddedAndReadsBackAsTheEvent() throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...2, offline: true)
        // A property named offline: the payload is decoded and written again instead of spliced.
        var odd = F.event(3)
        odd.properties["offline"] = "maybe"
        #expect(try outbox.record(Recording(event: odd, origin: .service(F.service), offline: false)))
        let pending = try outbox.pending(for: F.service, limits: BatchLimits())
        #expect(pending.count == 3)
        for (p, (original, offline)) in zip(pending, [(F.event(1), true), (F.event(2), true), (odd, false)]) {
            let object = try #require(try JSONSerialization.jsonObject(with: p.json) as? [String: Any])
            #expect(object["offline"] as? Bool == offline)
            var expected = original
            expected.offline = offline
            #expect(try WalkscapeJSON.decoder().decode(AnalyticsEvent.self, from: p.json) == expected)
        }
        #expect(Outbox.withOffline("not an event", true) == nil)
    }

    @Test func recordingAnEventAgainKeepsOneAndASentEventIsNeverTakenBack() throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        #expect(try outbox.record(Recording(event: F.event(1), origin: .service(F.service))))
        #expect(try !outbox.record(Recording(event: F.event(1), origin: .service(F.service))))
        let pending = try outbox.pending(for: F.service, limits: BatchLimits())
        #expect(pending.count == 1)
        try outbox.markSent(pending, at: Date())
        #expect(try outbox.record([Recording(event: F.event(1), origin: .service(F.service))]) == 0)
        #expect(try outbox.pending(for: F.service, limits: BatchLimits()).isEmpty)
        #expect(try outbox.summary(for: F.service).sentTotal == 1)
    }

    @Test func localEventsAndOtherServicesEventsAreNeverPendingForThisService() throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...2, origin: .local)
        try F.fill(outbox, 3...4, origin: .service("https://other.example.org"))
        try F.fill(outbox, 5...5)
        #expect(try outbox.pending(for: F.service, limits: BatchLimits()).map(\.eventID) == [F.event(5).eventID!])
        let summary = try outbox.summary(for: F.service)
        #expect(
            summary.waiting == 1 && summary.local == 2 && summary.waitingElsewhere == ["https://other.example.org": 2])
    }

    @Test func aBatchHoldsAtMost50EventsAndAbout64kB() throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...60)
        #expect(try outbox.pending(for: F.service, limits: BatchLimits()).count == 50)
        let big = try TemporaryDirectory()
        let heavy = try F.outbox(big)
        try F.fill(heavy, 1...60, padding: 3000)
        let batch = try heavy.pending(for: F.service, limits: BatchLimits())
        let body = try WalkscapeJSON.encode(AnalyticsBatch(events: batch.map(\.event)))
        #expect(batch.count < 50 && batch.count > 15)
        #expect(body.count <= BatchLimits.defaultMaxBytes, "\(body.count) bytes")
        #expect(body.count > BatchLimits.defaultMaxBytes - 3500, "\(body.count) bytes: room for one more was left")
    }

    /// Reading ahead: several batches in one query are the batches `pending` gives one after
    /// another, and a batch the read's end cut short is left for the next read.
    @Test func batchesReadAheadAreTheBatchesPendingGivesInTurn() throws {
        for (padding, limits) in [(0, BatchLimits()), (3000, BatchLimits()), (3000, BatchLimits(maxEvents: 10))] {
            let home = try TemporaryDirectory()
            let outbox = try F.outbox(home)
            try F.fill(outbox, 1...130, padding: padding)
            var oneByOne: [[Int64]] = []
            var after: Int64 = 0
            while true {
                let batch = try outbox.pending(for: F.service, limits: limits, after: after)
                guard let last = batch.last else { break }
                oneByOne.append(batch.map(\.seq))
                after = last.seq
            }
            var ahead: [[Int64]] = []
            after = 0
            while true {
                let batches = try outbox.pendingBatches(for: F.service, limits: limits, after: after, count: 3)
                guard let last = batches.last?.last else { break }
                #expect(batches.count <= 3)
                ahead += batches.map { $0.map(\.seq) }
                after = last.seq
            }
            #expect(ahead == oneByOne, "padding \(padding), \(limits)")
            #expect(oneByOne.flatMap { $0 } == Array(1...130))
        }
    }

    @Test func anUnknownOfflineIsSettledByTheNextAttemptForWhatWasRecordedBeforeIt() throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...2, offline: nil)
        let mark = try outbox.lastSeq()
        try F.fill(outbox, 3...3, offline: nil)
        try outbox.resolveOffline(service: F.service, throughSeq: mark, offline: true)
        let offline = try outbox.entries().map(\.event.offline)
        #expect(offline == [true, true, nil])
    }

    /// A reached service is one mark, not a write to each event: the events up to it read as not
    /// offline, an unreachable answer after it marks only those after the mark, and events moved
    /// to another service keep what the mark said of them.
    @Test func aReachedMarkSettlesWhatWasRecordedBeforeItAndGoesWithMovedEvents() throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...2, offline: nil)
        try outbox.resolveOffline(service: F.service, throughSeq: try outbox.lastSeq(), offline: false)
        try F.fill(outbox, 3...4, offline: nil)
        #expect(try outbox.entries().map(\.event.offline) == [false, false, nil, nil])
        try outbox.resolveOffline(service: F.service, throughSeq: try outbox.lastSeq(), offline: true)
        #expect(try outbox.entries().map(\.event.offline) == [false, false, true, true])
        // A lower mark later changes nothing.
        try outbox.resolveOffline(service: F.service, throughSeq: 1, offline: false)
        #expect(try outbox.entries().map(\.event.offline) == [false, false, true, true])
        try F.fill(outbox, 5...5, offline: nil)
        let other = "http://127.0.0.1:10"
        #expect(try outbox.move(from: F.service, to: other) == 5)
        #expect(try outbox.entries().map(\.event.offline) == [false, false, true, true, nil])
        // The new service unreachable: only the one the old mark said nothing of is offline.
        try outbox.resolveOffline(service: other, throughSeq: try outbox.lastSeq(), offline: true)
        #expect(try outbox.entries().map(\.event.offline) == [false, false, true, true, true])
    }

    @Test func quarantinedEventsAreKeptWithTheServicesWordsAndCanBeReleased() throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...3)
        let pending = try outbox.pending(for: F.service, limits: BatchLimits())
        try outbox.quarantine(pending[1], reason: "refused: events.0.name must be one of ...", at: Date())
        #expect(
            try outbox.pending(for: F.service, limits: BatchLimits()).map(\.seq) == [pending[0].seq, pending[2].seq])
        let held = try outbox.entries(states: [.quarantined])
        #expect(held.map(\.problem) == ["refused: events.0.name must be one of ..."])
        #expect(try outbox.releaseQuarantined() == 1)
        #expect(try outbox.pending(for: F.service, limits: BatchLimits()).count == 3)
        #expect(try outbox.purge() == 3)
        #expect(try outbox.summary(for: F.service) == OutboxSummary())
    }
}

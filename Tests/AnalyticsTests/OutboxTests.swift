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
            // Marking a batch sent keeps its statement journal in memory, not in a temporary file
            // made and unlinked at every commit.
            let temporary = try outbox.database.writeWithoutTransaction {
                try Int.fetchOne($0, sql: "PRAGMA temp_store")
            }
            #expect(temporary == 2, "PRAGMA temp_store is \(temporary.map(String.init) ?? "nil") (2 is MEMORY)")
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
    /// A sent event leaves what is listed and counted, and its id stays known (an import run again
    /// skips it) until it is forgotten.
    @Test func aSentEventLeavesTheListsAndCountsAndItsIdIsKnownUntilForgotten() throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...3)
        let sentAt = Date()
        try outbox.markSent(Array(try outbox.pending(for: F.service, limits: BatchLimits()).prefix(2)), at: sentAt)
        #expect(try outbox.entries().map(\.event.eventID) == [F.event(3).eventID])
        var summary = try outbox.summary(for: F.service)
        #expect(summary.lastDeliveredAt != nil)
        summary.lastDeliveredAt = nil
        #expect(summary == OutboxSummary(waiting: 1, sentTotal: 2))
        #expect(try outbox.record([Recording(event: F.event(1), origin: .service(F.service))]) == 0)
        try outbox.forgetSent(before: sentAt - 1)
        #expect(try outbox.record([Recording(event: F.event(2), origin: .service(F.service))]) == 0)
        try outbox.forgetSent(before: sentAt + 1)
        #expect(try outbox.record([Recording(event: F.event(2), origin: .service(F.service))]) == 1)
        #expect(try outbox.purge() == 2)
        #expect(try outbox.record([Recording(event: F.event(1), origin: .service(F.service))]) == 1)
    }

    /// Marking a batch sent writes the same few pages however many events the outbox holds: the
    /// events' ids are random, so a ledger of sent ids kept apart from the events (and the events
    /// deleted) put each commit's ids on pages all over two indexes, which grow with the outbox.
    @Test func markingABatchSentWritesNoMorePagesInALargeOutboxThanInASmallOne() throws {
        func pagesWritten(holding count: Int) throws -> Int {
            let home = try TemporaryDirectory()
            let outbox = try F.outbox(home)
            _ = try outbox.record(
                (0..<count).map { n in
                    var event = F.event(n)
                    event.properties["eventId"] = .string(UUID().uuidString.lowercased())
                    return Recording(event: event, origin: .service(F.service), offline: false)
                })
            let batch = try outbox.pendingBatches(for: F.service, limits: BatchLimits(), count: 8).flatMap { $0 }
            try #require(batch.count == 400)
            try outbox.database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try outbox.markSent(batch, at: Date())
            // The log's frames since it was emptied: the pages the commit wrote.
            let row = try outbox.database.writeWithoutTransaction {
                try Row.fetchOne($0, sql: "PRAGMA wal_checkpoint(PASSIVE)")
            }
            return try #require(row)[1]
        }
        let small = try pagesWritten(holding: 1_000)
        let large = try pagesWritten(holding: 10_000)
        #expect(
            large <= small + small / 4,
            "400 events marked sent: \(small) pages in an outbox of 1,000, \(large) in one of 10,000")
    }

    /// An outbox written by the walkscape before sent events were kept in place (a table of sent
    /// ids beside the events) is brought forward when opened: what waits, what was set aside and
    /// what is local stay as they were, the ids sent stay known, and the recording order goes on
    /// after the last event ever recorded, sent ones included.
    @Test func anOutboxWithALedgerOfSentIdsIsBroughtForwardWhenOpened() throws {
        let home = try TemporaryDirectory()
        let url = home.file("state/analytics.sqlite")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let old = try DatabaseQueue(path: url.path)
        let recent = Date() - 3600
        let stale = Date() - 40 * 24 * 3600
        // The schema as the walkscape of before wrote it: its one migration.
        try OutboxSchema.migrator.migrate(old, upTo: "v1")
        try old.write { db in
            try db.execute(sql: "INSERT INTO note VALUES ('sentTotal', '9')")
            for (seq, n, state, service) in [
                (5, 5, "waiting", F.service), (7, 7, "quarantined", F.service), (8, 8, "local", nil),
                (12, 12, "waiting", F.service),
            ] {
                let payload = try WalkscapeJSON.encode(F.event(n), dialect: .live)
                try db.execute(
                    sql: """
                        INSERT INTO event (seq, eventId, name, tourId, service, state, payload, offline, recordedAt, problem)
                        VALUES (?, ?, 'point_triggered', 'tour', ?, ?, ?, 0, ?, ?)
                        """,
                    arguments: [
                        seq, F.event(n).eventID, service, state, String(decoding: payload, as: UTF8.self), recent,
                        state == "quarantined" ? "refused" : nil,
                    ])
            }
            // Events 13 to 20 were the last recorded, and were sent (deleted); the ledger still holds
            // the ids of 13 and 14, those of 15 to 20 were forgotten.
            try db.execute(sql: "UPDATE sqlite_sequence SET seq = 20 WHERE name = 'event'")
            try db.execute(sql: "INSERT INTO sent VALUES (?, ?)", arguments: [F.event(13).eventID, recent])
            try db.execute(sql: "INSERT INTO sent VALUES (?, ?)", arguments: [F.event(14).eventID, stale])
        }
        try old.close()

        let outbox = try F.outbox(home)
        #expect(try outbox.pending(for: F.service, limits: BatchLimits()).map(\.seq) == [5, 12])
        #expect(try outbox.entries().map(\.state) == [.waiting, .quarantined, .local, .waiting])
        #expect(try outbox.entries(states: [.quarantined]).map(\.problem) == ["refused"])
        #expect(try outbox.summary(for: F.service) == OutboxSummary(waiting: 2, quarantined: 1, local: 1, sentTotal: 9))
        #expect(try outbox.record([Recording(event: F.event(13), origin: .service(F.service))]) == 0)
        #expect(try outbox.record([Recording(event: F.event(20), origin: .service(F.service))]) == 1)
        // After the last event ever recorded: a service's reached mark of 20 does not cover it.
        #expect(try outbox.pending(for: F.service, limits: BatchLimits()).map(\.seq).last ?? 0 > 20)
        // The ids are forgotten as they were: the one sent 40 days ago may be recorded again.
        try outbox.forgetSent(before: Date() - 30 * 24 * 3600)
        #expect(try outbox.record([Recording(event: F.event(14), origin: .service(F.service))]) == 1)
        #expect(try outbox.record([Recording(event: F.event(13), origin: .service(F.service))]) == 0)
    }
    /// A walkscape of before sent events were kept in place, still running on the same home (a walk
    /// started before an upgrade), goes on recording, marking sent and forgetting through its own
    /// statements (copied here as it ran them) on an outbox brought forward.
    @Test func anOlderWalkscapeStillRecordsAndSendsOnAnOutboxBroughtForward() throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...3)
        let queue = try DatabaseQueue(path: home.file("state/analytics.sqlite").path)
        let payload = String(decoding: try WalkscapeJSON.encode(F.event(4), dialect: .live), as: UTF8.self)
        func olderRecord(_ n: Int) throws -> Int {
            try queue.write { db in
                try db.execute(
                    sql: """
                        INSERT OR IGNORE INTO event (eventId, name, tourId, service, state, payload, offline, recordedAt)
                        SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM sent WHERE eventId = ?)
                        """,
                    arguments: [
                        F.event(n).eventID, "point_triggered", "tour", F.service, "waiting", payload, false, Date(),
                        F.event(n).eventID,
                    ])
                return db.changesCount
            }
        }
        #expect(try olderRecord(4) == 1)
        // This walkscape marks 1 and 2 sent; the older one knows them as sent.
        try outbox.markSent(Array(try outbox.pending(for: F.service, limits: BatchLimits()).prefix(2)), at: Date())
        #expect(try olderRecord(1) == 0)
        // The older one marks 3 sent its way: the event deleted, its id written to the ledger.
        let three = try #require(try outbox.pending(for: F.service, limits: BatchLimits()).first)
        try queue.write { db in
            try db.execute(sql: "DELETE FROM event WHERE seq = ?", arguments: [three.seq])
            try db.execute(
                sql: "INSERT OR REPLACE INTO sent (eventId, sentAt) VALUES (?, ?)", arguments: [three.eventID, Date()])
        }
        #expect(try outbox.pending(for: F.service, limits: BatchLimits()).map(\.eventID) == [F.event(4).eventID])
        #expect(try outbox.record([Recording(event: F.event(3), origin: .service(F.service))]) == 0)
        // Its forgetting and its purge reach the sent events.
        try queue.write { db in try db.execute(sql: "DELETE FROM sent WHERE sentAt < ?", arguments: [Date() + 1]) }
        #expect(try outbox.record([Recording(event: F.event(3), origin: .service(F.service))]) == 1)
        #expect(try outbox.entries().map(\.event.eventID) == [F.event(4).eventID, F.event(3).eventID])
        try queue.close()
    }
    /// Walkscapes started at once on a home with no outbox yet (three logins, a removal beside
    /// two `analytics status`) each make or open it and record their event: none is refused for
    /// another making it at the same moment, and none is lost.
    @Test func processesOpeningANewOutboxAtOnceEachRecordTheirEvent() async throws {
        for round in 0..<20 {
            let home = try TemporaryDirectory()
            let url = home.file("state/analytics.sqlite")
            let results = await withTaskGroup(of: String?.self) { group in
                for n in 1...4 {
                    group.addTask {
                        await withCheckedContinuation { (done: CheckedContinuation<String?, Never>) in
                            Thread {
                                do {
                                    let outbox = try Outbox.open(at: url)
                                    try outbox.record(Recording(event: F.event(n), origin: .service(F.service)))
                                    done.resume(returning: nil)
                                } catch {
                                    done.resume(returning: "\(n): \(error)")
                                }
                            }.start()
                        }
                    }
                }
                var failures: [String] = []
                for await failure in group { if let failure { failures.append(failure) } }
                return failures
            }
            #expect(results.isEmpty, "round \(round): \(results)")
            let held = try Outbox.open(at: url).entries().map(\.event.eventID)
            #expect(Set(held) == Set((1...4).map { F.event($0).eventID }), "round \(round)")
        }
    }

    /// On a full disk the outbox says the disk is full: SQLite reports a full disk met while it
    /// makes its shared memory or log as an I/O error, which was shown as "disk I/O error". (Needs
    /// root, to mount a small tmpfs.)
    @Test(.enabled(if: Mounts.available, "mounts a tmpfs"))
    func aFullDiskIsNamedAsOne() throws {
        let dir = try TemporaryDirectory()
        let mount = dir.url.appendingPathComponent("small")
        try Mounts.tmpfs(at: mount, size: "256k")
        defer { Mounts.unmount(mount) }
        // An outbox made while there was room, then closed (its log and shared memory go with it).
        let url = mount.appendingPathComponent("analytics.sqlite")
        do { _ = try Outbox.open(at: url) }
        // Full: a file as large as the disk lets it be.
        let fd = open(mount.appendingPathComponent("filler").path, O_WRONLY | O_CREAT, 0o600)
        let block = [UInt8](repeating: 0, count: 4096)
        while write(fd, block, block.count) > 0 {}
        close(fd)
        do {
            _ = try Outbox.open(at: url)
            Issue.record("an outbox was opened on a full disk")
        } catch {
            #expect(error.message.contains("the disk is full"), "\(error.message)")
        }
    }
}

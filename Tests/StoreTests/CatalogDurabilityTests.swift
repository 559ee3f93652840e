import Foundation
import GRDB
import TestSupport
import Testing

@testable import TourStore

/// A committed install is on disk when the command says so: the catalog syncs its write-ahead log
/// at each commit (`synchronous = FULL`), not only at the next checkpoint (NORMAL, which GRDB sets
/// when it turns WAL on, after the connection's own set-up; a kill survives it, a power cut not).
@Suite struct CatalogDurabilityTests {
    @Test func everyCatalogCommitIsSyncedToDiskInWriteAheadLogMode() throws {
        let folder = try TemporaryDirectory()
        let location = StoreLocation(dataFolder: folder.url)
        // Made, then opened again as every later command finds it.
        for store in [try TourStore.open(location), try #require(try TourStore.openIfPresent(location))] {
            let (journal, synchronous) = try store.database.read { db in
                (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"))
            }
            #expect(journal == "wal")
            #expect(synchronous == 2, "PRAGMA synchronous is \(synchronous.map(String.init) ?? "nil") (2 is FULL)")
        }
    }

    /// The bookkeeping of a download under way is committed without waiting for the disk (NORMAL
    /// for that one transaction), and the connection is FULL again afterwards, also when the
    /// transaction failed: the switch that follows must be durable. A commit that did not wait is
    /// still there for the next process (a kill keeps the page cache).
    @Test func aDownloadsBookkeepingLeavesTheCatalogDurable() throws {
        let folder = try TemporaryDirectory()
        let location = StoreLocation(dataFolder: folder.url)
        let store = try TourStore.open(location)
        func synchronous() throws -> Int? {
            try store.database.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        }
        let identity = FileIdentity(url: "https://media.example.org/t/en/01.mp3", size: 10)
        try store.savePartial(identity, validator: "\"v1\"", bootID: "boot", now: Date())
        #expect(try synchronous() == 2)
        let midway = try store.write(durable: false) { db in
            try Int.fetchOne(db, sql: "PRAGMA synchronous")
        }
        #expect(midway == 1, "inside a bookkeeping transaction: NORMAL (1)")
        struct Refused: Error {}
        #expect(throws: StoreError.self) {
            try store.write(durable: false) { _ in throw Refused() }
        }
        #expect(try synchronous() == 2)

        let reopened = try #require(try TourStore.openIfPresent(location))
        #expect(try reopened.partial(identity)?.validator == "\"v1\"")
    }
}

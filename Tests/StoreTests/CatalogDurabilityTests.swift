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
}

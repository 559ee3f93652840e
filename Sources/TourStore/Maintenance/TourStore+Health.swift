import GRDB

extension TourStore {
    /// The catalog's quick check and what the store holds; cheap (no blob is read).
    public func health() throws(StoreError) -> StoreHealth {
        let parts = blobs.partFiles().count
        return try read { db in
            let quick = try String.fetchAll(db, sql: "PRAGMA quick_check")
            return StoreHealth(
                quickCheck: quick == ["ok"] ? "ok" : quick.prefix(3).joined(separator: "; "),
                tours: try TourRecord.fetchCount(db), blobs: try BlobRecord.fetchCount(db),
                bytes: try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM blob") ?? 0,
                partialDownloads: parts)
        }
    }
}

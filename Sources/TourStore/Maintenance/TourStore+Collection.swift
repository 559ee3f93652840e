import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension TourStore {
    /// Deletes the blobs no installed version uses (after an update or a removal, the old
    /// version's files), and blob files the catalog does not know (left by a collection that was
    /// killed half-way). With `partials`, also the part files of interrupted downloads, which the
    /// next download would otherwise resume. The caller holds the `StoreLock`.
    ///
    /// Rows go first, in one transaction, then the files: a kill in between leaves files nothing
    /// names, which the next collection removes.
    public func collectGarbage(partials: Bool) throws(StoreError) -> CollectionReport {
        var report = CollectionReport()
        let unused = try write { db -> [BlobRecord] in
            let blobs = try BlobRecord.fetchAll(
                db,
                sql: """
                    SELECT * FROM blob WHERE sha256 NOT IN (SELECT sha256 FROM versionFile)
                    """)
            try db.execute(sql: "DELETE FROM blob WHERE sha256 NOT IN (SELECT sha256 FROM versionFile)")
            return blobs
        }
        let listed = try read { db in try Set(String.fetchAll(db, sql: "SELECT sha256 FROM blob")) }
        var doomed = Set(unused.map(\.sha256))
        for name in blobs.blobFiles().keys where !listed.contains(name) { doomed.insert(name) }
        let sizes = blobs.blobFiles()
        for sha in doomed {
            if let size = sizes[sha] {
                report.blobsRemoved += 1
                report.bytesFreed += size
            }
            blobs.remove(sha)
        }

        let parts = blobs.partFiles()
        let records = try read { db in try PartialRecord.fetchAll(db) }
        let recorded = Set(records.map { FileIdentity(location: $0.location, size: $0.size).partName })
        if partials {
            for (name, size) in parts {
                unlink(blobs.partial.appendingPathComponent(name).path)
                report.partsRemoved += 1
                report.partBytesFreed += size
            }
            _ = try write { db in try PartialRecord.deleteAll(db) }
        } else {
            // Bookkeeping of part files that are gone, and part files without bookkeeping (they
            // could never be resumed).
            let stale = records.filter { parts[FileIdentity(location: $0.location, size: $0.size).partName] == nil }
            if !stale.isEmpty {
                _ = try write { db in
                    for record in stale { try record.delete(db) }
                }
            }
            for (name, size) in parts where !recorded.contains(name) {
                unlink(blobs.partial.appendingPathComponent(name).path)
                report.partsRemoved += 1
                report.partBytesFreed += size
            }
        }
        return report
    }
}

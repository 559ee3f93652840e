import GRDB

extension TourStore {
    /// Uninstalls languages of a tour (all of them when nil), in one transaction; returns the
    /// languages removed. The blobs stay until collected. The caller holds the `StoreLock`.
    public func remove(tourID: String, languages: [String]?) throws(StoreError) -> [String] {
        try write { db in
            var request = InstallationRecord.filter(Column("tourId") == tourID)
            if let languages { request = request.filter(languages.contains(Column("language"))) }
            let doomed = try request.fetchAll(db)
            for installation in doomed {
                try installation.delete(db)
                _ = try VersionRecord.deleteOne(db, key: installation.versionId)
            }
            if try InstallationRecord.filter(Column("tourId") == tourID).fetchCount(db) == 0 {
                _ = try TourRecord.deleteOne(db, key: tourID)
            }
            return doomed.map(\.language).sorted()
        }
    }
}

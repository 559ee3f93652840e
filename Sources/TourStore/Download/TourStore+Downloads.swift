import Foundation
import GRDB

/// What downloads need from the catalog: part files' bookkeeping, the blobs a file identity is
/// known by, and the switch of a tour to a new version.
extension TourStore {
    /// The blob holding `identity`, when it is known and its file is there.
    func knownBlob(_ identity: FileIdentity) throws(StoreError) -> String? {
        let sha = try read { db in
            try String.fetchOne(
                db, sql: "SELECT sha256 FROM source WHERE location = ? AND size = ?",
                arguments: [identity.location, identity.size])
        }
        guard let sha, blobs.isPresent(sha, size: identity.size) else { return nil }
        return sha
    }

    func partial(_ identity: FileIdentity) throws(StoreError) -> PartialRecord? {
        try read { db in try PartialRecord.fetchOne(db, key: ["location": identity.location, "size": identity.size]) }
    }

    /// Not durable (`write(durable:)`): a part file is only resumed in the boot that wrote it, and
    /// a kill keeps the commit; after a power cut the row is ignored anyway.
    func savePartial(_ identity: FileIdentity, validator: String?, bootID: String, now: Date) throws(StoreError) {
        try write(durable: false) { db in
            try PartialRecord(
                location: identity.location, size: identity.size, validator: validator, bootId: bootID,
                startedAt: now
            ).upsert(db)
        }
    }

    func forgetPartial(_ identity: FileIdentity) throws(StoreError) {
        _ = try write(durable: false) { db in
            try PartialRecord.deleteOne(db, key: ["location": identity.location, "size": identity.size])
        }
    }

    /// Records a finished download before its part file is renamed into `media/`: a kill between
    /// the two leaves a complete part file that the next run renames without fetching anything.
    /// Not durable: the switch's commit carries it to the disk. A power cut before that may lose
    /// the row while the blob's file is in `media/`: the next download fetches the file again, and
    /// `gc` collects a file no row knows.
    func recordBlob(_ sha256: String, for identity: FileIdentity, now: Date) throws(StoreError) {
        try write(durable: false) { db in
            try BlobRecord(sha256: sha256, size: identity.size, addedAt: now).insert(db, onConflict: .ignore)
            try SourceRecord(location: identity.location, size: identity.size, sha256: sha256).upsert(db)
        }
    }

    /// The switch: in ONE transaction, the tour's row, the new versions and their files, the
    /// installations pointed at them, and the versions they replace deleted. Before it commits the
    /// tour plays its old version, after it the new one; blobs the old version alone used stay on
    /// disk until collected.
    func switchVersions(
        tour: TourRecord, versions: [(VersionRecord, [VersionFileRecord])], loudness: [LoudnessRecord] = []
    ) throws(StoreError) {
        try write { db in
            try tour.upsert(db)
            for record in loudness { try record.upsert(db) }
            for (version, files) in versions {
                var version = version
                try version.insert(db)
                guard let id = version.id else { continue }
                for var file in files {
                    file.versionId = id
                    try file.insert(db)
                }
                let old = try InstallationRecord.fetchOne(
                    db, key: ["tourId": version.tourId, "language": version.language])
                try InstallationRecord(tourId: version.tourId, language: version.language, versionId: id).upsert(db)
                if let old { _ = try VersionRecord.deleteOne(db, key: old.versionId) }
            }
        }
    }
}

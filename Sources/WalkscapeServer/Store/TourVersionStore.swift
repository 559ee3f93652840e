import Foundation
import GRDB

/// The `version` of a tour's language, as the manifest reports it: a number that goes up by one each
/// time what is published in that language changes (the live service bumps it on republishing).
/// Kept in the data folder, so a restart with unchanged folders reports the same versions.
public struct TourVersionStore: Sendable {
    let database: ServerDatabase

    public init(database: ServerDatabase) { self.database = database }

    /// The version for this content hash: the stored one when the hash is unchanged, the next when not.
    public func version(tourID: String, language: String, contentHash: String) throws -> Int {
        try database.writer.write { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT contentHash, version FROM tourVersion WHERE tourId = ? AND language = ?",
                arguments: [tourID, language])
            if let row, row["contentHash"] as String == contentHash { return row["version"] as Int }
            let next = ((row?["version"] as Int?) ?? 0) + 1
            try db.execute(
                sql: """
                    INSERT INTO tourVersion (tourId, language, contentHash, version, publishedAt) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(tourId, language) DO UPDATE SET contentHash = excluded.contentHash,
                        version = excluded.version, publishedAt = excluded.publishedAt
                    """, arguments: [tourID, language, contentHash, next, Date()])
            return next
        }
    }
}

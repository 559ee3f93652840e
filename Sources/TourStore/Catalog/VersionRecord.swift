import Foundation
import GRDB

/// A row of `version`: one downloaded language version. `detail` and `points` hold the service's
/// answers in the live shape (TourModel reads them back), so nothing the service said is lost.
struct VersionRecord: Codable, Sendable, Hashable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "version"
    var id: Int64?
    var tourId: String
    var language: String
    var manifestVersion: String
    var fingerprint: String
    var title: String
    var detail: String
    var points: String
    var offlineMap: String?
    var installedAt: Date

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

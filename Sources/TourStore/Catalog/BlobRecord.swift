import Foundation
import GRDB

/// A row of `blob`: a file in media/, named by its SHA-256.
struct BlobRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "blob"
    var sha256: String
    var size: Int64
    var addedAt: Date
}

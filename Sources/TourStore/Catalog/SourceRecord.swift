import GRDB

/// A row of `source`: a file of the service (URL without signature, declared size) whose bytes
/// are already in a blob.
struct SourceRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "source"
    var location: String
    var size: Int64
    var sha256: String
}

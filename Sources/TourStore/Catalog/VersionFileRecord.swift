import GRDB

/// A row of `versionFile`: one file of a version, and the blob that holds it.
struct VersionFileRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "versionFile"
    var versionId: Int64
    var kind: String
    var pointId: String?
    var language: String?
    var location: String
    var size: Int64
    var sha256: String
    var audioProblem: String?
}

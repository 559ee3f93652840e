import GRDB

/// A row of `installation`: the version an installed language plays.
struct InstallationRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "installation"
    var tourId: String
    var language: String
    var versionId: Int64
}

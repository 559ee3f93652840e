import GRDB

/// A row of `tour`.
struct TourRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "tour"
    var id: String
    var slug: String
    var service: String
    var isProtected: Bool
}

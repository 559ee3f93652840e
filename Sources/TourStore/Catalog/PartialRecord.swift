import Foundation
import GRDB

/// A row of `partial`: a download under way in partial/.
struct PartialRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "partial"
    var location: String
    var size: Int64
    /// The ETag (or Last-Modified) of the answer the bytes so far came from, sent as If-Range.
    var validator: String?
    /// /proc/sys/kernel/random/boot_id when the bytes were written.
    var bootId: String
    var startedAt: Date
}

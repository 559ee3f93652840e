import Foundation
import GRDB

/// A voucher code: unlocks its tour for whoever redeems it, until it expires or is used up.
public struct VoucherRecord: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "voucher"

    /// Trimmed and upper-cased, as redemption normalises what users type.
    public var code: String
    /// Nil: a voucher not tied to a tour (redeeming it is a 400, as live).
    public var tourId: String?
    public var maxUses: Int?
    public var usedCount: Int
    public var validUntil: Date?
    public var createdAt: Date

    public init(
        code: String, tourId: String?, maxUses: Int?, usedCount: Int = 0, validUntil: Date?,
        createdAt: Date = Date()
    ) {
        self.code = VoucherStore.normalize(code: code)
        self.tourId = tourId
        self.maxUses = maxUses
        self.usedCount = usedCount
        self.validUntil = validUntil
        self.createdAt = createdAt
    }
}

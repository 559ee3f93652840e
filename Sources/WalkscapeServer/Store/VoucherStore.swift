import Foundation
import GRDB

/// Vouchers and the grants they give: which user may open which protected tour.
public struct VoucherStore: Sendable {
    /// Why a redemption was refused, in the order the service checks.
    public enum Refusal: Error, Sendable, Hashable {
        case unknownCode
        case expired
        case exhausted
        case notTiedToATour
        case alreadyGranted(tourID: String)
    }

    public struct Grant: Sendable, Hashable {
        public var tourID: String
        public var grantedAt: Date
    }

    let database: ServerDatabase

    public init(database: ServerDatabase) { self.database = database }

    public static func normalize(code: String) -> String {
        code.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
    }

    /// Adds or replaces a voucher (an admin command; replacing keeps its use count).
    public func save(_ voucher: VoucherRecord) throws {
        try database.writer.write { db in
            var voucher = voucher
            if let existing = try VoucherRecord.fetchOne(db, key: voucher.code) {
                voucher.usedCount = existing.usedCount
                voucher.createdAt = existing.createdAt
            }
            try voucher.save(db)
        }
    }

    public func all() throws -> [VoucherRecord] {
        try database.writer.read { db in try VoucherRecord.order(Column("code")).fetchAll(db) }
    }

    /// Redeems `code` for `userID`: checks and the grant in one transaction, so a voucher with one
    /// use left is granted once however many redemptions race. `tourExists` says whether the
    /// voucher's tour is being served (a voucher for a tour that is not is not tied to a tour).
    public func redeem(
        code: String, userID: String, now: Date = Date(),
        tourExists: @Sendable (String) -> Bool
    ) throws -> Result<VoucherRecord, Refusal> {
        let normalized = Self.normalize(code: code)
        return try database.writer.write { db in
            guard var voucher = try VoucherRecord.fetchOne(db, key: normalized) else { return .failure(.unknownCode) }
            if let validUntil = voucher.validUntil, validUntil < now { return .failure(.expired) }
            if let maxUses = voucher.maxUses, voucher.usedCount >= maxUses { return .failure(.exhausted) }
            guard let tourID = voucher.tourId, tourExists(tourID) else { return .failure(.notTiedToATour) }
            let granted =
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM \"grant\" WHERE userId = ? AND tourId = ?",
                    arguments: [userID, tourID]) ?? false
            if granted { return .failure(.alreadyGranted(tourID: tourID)) }
            try db.execute(
                sql: "INSERT INTO \"grant\" (userId, tourId, voucherCode, grantedAt) VALUES (?, ?, ?, ?)",
                arguments: [userID, tourID, voucher.code, now])
            voucher.usedCount += 1
            try voucher.update(db)
            try Counters.increment("vouchersRedeemed", in: db)
            return .success(voucher)
        }
    }

    public func grants(userID: String) throws -> [Grant] {
        try database.writer.read { db in
            try Row.fetchAll(
                db, sql: "SELECT tourId, grantedAt FROM \"grant\" WHERE userId = ? ORDER BY grantedAt, tourId",
                arguments: [userID]
            )
            .map { Grant(tourID: $0["tourId"], grantedAt: $0["grantedAt"]) }
        }
    }

    public func hasGrant(userID: String, tourID: String) throws -> Bool {
        try database.writer.read { db in
            try Bool.fetchOne(
                db, sql: "SELECT 1 FROM \"grant\" WHERE userId = ? AND tourId = ?",
                arguments: [userID, tourID]) ?? false
        }
    }
}

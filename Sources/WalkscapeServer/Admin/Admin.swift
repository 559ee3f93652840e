import Foundation
import GRDB
import TourModel

/// The admin subcommands' work on a data folder, which a running server may be using at the same
/// time (WAL, busy timeout; each change one transaction).
public struct Admin: Sendable {
    let database: ServerDatabase

    /// `existing`: the commands that only read (events, stats, voucher list) open a data folder a
    /// server has used, and never create one (a mistyped --data would report zeros, exit 0).
    public init(dataDirectory: URL, existing: Bool = false) throws(ServerError) {
        let database = dataDirectory.appendingPathComponent(ServerDatabase.fileName)
        if existing, !FileManager.default.fileExists(atPath: database.path) {
            throw ServerError(
                .usage, "\(dataDirectory.path) holds no server data (no \(ServerDatabase.fileName)): check --data")
        }
        self.database = try ServerDatabase(dataDirectory: dataDirectory)
    }

    public func addUser(
        email: String, password: String, name: String?, preferredLanguage: String,
        mailingListOptIn: Bool, bcryptCost: Int
    ) async throws(ServerError) -> UserRecord {
        guard BodyValidator.isEmail(email) else { throw ServerError(.usage, "\(email) is not an email address") }
        guard password.count >= 8 else { throw ServerError(.usage, "the password must have at least 8 characters") }
        if let problem = PasswordHasher.problem(password) { throw ServerError(.usage, problem) }
        let accounts = AccountStore(database: database)
        do {
            let hash = try await PasswordHasher(cost: bcryptCost).hash(password)
            return try accounts.create(
                email: email, passwordHash: hash, name: name, preferredLanguage: preferredLanguage,
                mailingListOptIn: mailingListOptIn)
        } catch AccountStore.Failure.emailTaken {
            throw ServerError(.data, "an account for \(AccountStore.normalize(email: email)) already exists")
        } catch {
            throw ServerError(.unavailable, "cannot add the account (\(error))")
        }
    }

    public func addVoucher(code: String, tourID: String?, maxUses: Int?, validUntil: Date?) throws(ServerError)
        -> VoucherRecord
    {
        let voucher = VoucherRecord(
            code: code, tourId: tourID?.trimmingCharacters(in: .whitespaces), maxUses: maxUses,
            validUntil: validUntil)
        guard !voucher.code.isEmpty else { throw ServerError(.usage, "the code must not be empty") }
        do {
            try VoucherStore(database: database).save(voucher)
        } catch {
            throw ServerError(.unavailable, "cannot save the voucher (\(error))")
        }
        return voucher
    }

    public func vouchers() throws(ServerError) -> [VoucherRecord] {
        do { return try VoucherStore(database: database).all() } catch {
            throw ServerError(.unavailable, "cannot read the vouchers (\(error))")
        }
    }

    public func events() throws(ServerError) -> AnalyticsStore.Summary {
        do { return try AnalyticsStore(database: database).summary() } catch {
            throw ServerError(.unavailable, "cannot read the events (\(error))")
        }
    }

    /// The counters plus the current number of users, vouchers, grants and stored events.
    public func stats() throws(ServerError) -> [String: Int] {
        do {
            var stats = try Counters.all(in: database)
            try database.writer.read { db in
                for (key, table) in [
                    ("users", "user"), ("vouchers", "voucher"), ("grants", "grant"), ("events", "event"),
                ] {
                    stats[key] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(table)\"") ?? 0
                }
            }
            return stats
        } catch {
            throw ServerError(.unavailable, "cannot read the statistics (\(error))")
        }
    }

    /// The days a voucher may end on (`CivilDate.shownSeconds`): before 1970 it has ended before
    /// any walk, and dates before 1582 were printed back as other days.
    public static let validUntilRange =
        Date(
            timeIntervalSince1970: CivilDate.shownSeconds.lowerBound)...Date(
            timeIntervalSince1970: CivilDate.shownSeconds.upperBound)

    /// `2026-12-31` (valid through that day, UTC) or an ISO-8601 time with a zone.
    public static func parseValidUntil(_ text: String) -> Date? {
        if let date = ISO8601.parse(text) { return date }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        // A day that exists: 2026-02-31 is refused, never carried over into March.
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
            CivilDate.isValid(year: y, month: m, day: d)
        else { return nil }
        let start = Date(timeIntervalSince1970: Double(CivilDate.days(year: y, month: m, day: d)) * 86_400)
        return start.addingTimeInterval(24 * 3600 - 1)
    }
}

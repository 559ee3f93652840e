import Foundation
import GRDB
import TourModel

/// Users and their refresh tokens.
public struct AccountStore: Sendable {
    public enum Failure: Error, Sendable, Hashable {
        case emailTaken
    }

    let database: ServerDatabase

    public init(database: ServerDatabase) { self.database = database }

    /// Normalised the way the unique index compares addresses.
    public static func normalize(email: String) -> String { EmailAddress.normalized(email) }

    /// Creates a user; `.emailTaken` when the address exists, however many registrations race.
    public func create(
        email: String, passwordHash: String, name: String?, preferredLanguage: String,
        mailingListOptIn: Bool
    ) throws -> UserRecord {
        let now = Date()
        let user = UserRecord(
            id: UUID().uuidString.lowercased(), email: Self.normalize(email: email),
            passwordHash: passwordHash, name: name, preferredLanguage: preferredLanguage,
            mailingListOptIn: mailingListOptIn, createdAt: now, updatedAt: now)
        do {
            // Read back what was stored, so the answer says what `/auth/me` will (times to the millisecond).
            return try database.writer.write { db in
                try user.insert(db)
                try Counters.increment("registrations", in: db)
                return try UserRecord.fetchOne(db, key: user.id) ?? user
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw Failure.emailTaken
        }
    }

    public func user(email: String) throws -> UserRecord? {
        try database.writer.read { db in
            try UserRecord.filter(Column("email") == Self.normalize(email: email)).fetchOne(db)
        }
    }

    public func user(id: String) throws -> UserRecord? {
        try database.writer.read { db in try UserRecord.fetchOne(db, key: id) }
    }

    public func exists(email: String) throws -> Bool {
        try user(email: email) != nil
    }

    public func recordLogin() throws {
        try database.writer.write { db in try Counters.increment("logins", in: db) }
    }

    /// Remembers an issued refresh token, so it can be used exactly once.
    public func recordRefreshToken(id: String, userID: String, issuedAt: Date, expiresAt: Date) throws {
        try database.writer.write { db in
            try db.execute(
                sql: "INSERT INTO refreshToken (id, userId, issuedAt, expiresAt) VALUES (?, ?, ?, ?)",
                arguments: [id, userID, issuedAt, expiresAt])
        }
    }

    /// Uses up a refresh token: true for the first use of an unexpired token, false ever after.
    /// One transaction, so of two parallel refreshes with the same token exactly one succeeds.
    public func consumeRefreshToken(id: String, userID: String, now: Date = Date()) throws -> Bool {
        try database.writer.write { db in
            try db.execute(
                sql: """
                    UPDATE refreshToken SET usedAt = ? WHERE id = ? AND userId = ? AND usedAt IS NULL AND expiresAt > ?
                    """, arguments: [now, id, userID, now])
            let used = db.changesCount == 1
            try Counters.increment(used ? "refreshes" : "refreshesRefused", in: db)
            return used
        }
    }
}

import Foundation
import GRDB

/// The server's own state in `DATA/server.sqlite`: users, refresh tokens, vouchers, grants, received
/// analytics events, published versions, counters.
///
/// WAL mode and a busy timeout let a running server and an admin command (`voucher add`, `events`)
/// use the folder at the same time; every write is one transaction, so a crash leaves it consistent.
public struct ServerDatabase: Sendable {
    public static let fileName = "server.sqlite"
    public let writer: DatabasePool

    public init(dataDirectory: URL) throws(ServerError) {
        try DataDirectory.prepare(dataDirectory)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.foreignKeysEnabled = true
        configuration.label = "walkscape-server"
        let path = dataDirectory.appendingPathComponent(Self.fileName).path
        try DataDirectory.restrict(database: path)
        do {
            writer = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(writer)
        } catch {
            throw ServerError(.unavailable, "\(path): cannot be opened as the server's database (\(error))")
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "user") { t in
                t.primaryKey("id", .text)
                // Stored lower-cased: the unique index is what makes concurrent registrations of one
                // address end in exactly one account.
                t.column("email", .text).notNull().unique()
                t.column("passwordHash", .text).notNull()
                t.column("name", .text)
                t.column("preferredLanguage", .text).notNull()
                t.column("mailingListOptIn", .boolean).notNull()
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
            try db.create(table: "refreshToken") { t in
                t.primaryKey("id", .text)
                t.column("userId", .text).notNull().indexed().references("user", onDelete: .cascade)
                t.column("issuedAt", .datetime).notNull()
                t.column("expiresAt", .datetime).notNull()
                t.column("usedAt", .datetime)
            }
            try db.create(table: "voucher") { t in
                t.primaryKey("code", .text)
                t.column("tourId", .text)
                t.column("maxUses", .integer)
                t.column("usedCount", .integer).notNull().defaults(to: 0)
                t.column("validUntil", .datetime)
                t.column("createdAt", .datetime).notNull()
            }
            try db.create(table: "grant") { t in
                t.column("userId", .text).notNull().references("user", onDelete: .cascade)
                t.column("tourId", .text).notNull()
                t.column("voucherCode", .text)
                t.column("grantedAt", .datetime).notNull()
                t.primaryKey(["userId", "tourId"])
            }
            try db.create(table: "event") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("eventId", .text).indexed()
                t.column("name", .text).notNull()
                t.column("userId", .text)
                t.column("anonymousId", .text)
                t.column("tourId", .text)
                t.column("pointId", .text)
                t.column("language", .text)
                t.column("device", .text)
                t.column("osVersion", .text)
                t.column("offline", .boolean)
                t.column("timestamp", .datetime).notNull()
                t.column("properties", .text).notNull()
                t.column("requestUserId", .text)
                t.column("receivedAt", .datetime).notNull()
            }
            try db.create(table: "tourVersion") { t in
                t.column("tourId", .text).notNull()
                t.column("language", .text).notNull()
                t.column("contentHash", .text).notNull()
                t.column("version", .integer).notNull()
                t.column("publishedAt", .datetime).notNull()
                t.primaryKey(["tourId", "language"])
            }
            try db.create(table: "counter") { t in
                t.primaryKey("name", .text)
                t.column("value", .integer).notNull()
            }
        }
        return migrator
    }
}

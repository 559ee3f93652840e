import GRDB

/// Named counts of what the server did (registrations, logins, refreshes...), read by `stats`, so a
/// test can check, say, that parallel requests with an expiring token caused exactly one refresh.
public enum Counters {
    public static let names = [
        "registrations", "logins", "refreshes", "refreshesRefused", "vouchersRedeemed",
        "eventBatches",
    ]

    static func increment(_ name: String, by amount: Int = 1, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO counter (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = value + excluded.value
                """, arguments: [name, amount])
    }

    public static func all(in database: ServerDatabase) throws -> [String: Int] {
        try database.writer.read { db in
            var values = Dictionary(uniqueKeysWithValues: names.map { ($0, 0) })
            for row in try Row.fetchAll(db, sql: "SELECT name, value FROM counter") {
                values[row["name"]] = row["value"]
            }
            return values
        }
    }
}

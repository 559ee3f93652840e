import GRDB

/// The outbox's tables (docs/analytics.md has the picture). Migrations only ever add: an outbox
/// written by an older walkscape is brought forward when opened.
enum OutboxSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // Every event recorded and not yet delivered: waiting for its service, set aside after
            // the service refused it (quarantined), or from a tour folder and never to be sent (local).
            // `seq` is the recording order, which is the sending order.
            try db.execute(
                sql: """
                    CREATE TABLE event (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        eventId TEXT NOT NULL UNIQUE,
                        name TEXT NOT NULL,
                        tourId TEXT,
                        service TEXT,
                        state TEXT NOT NULL CHECK (state IN ('waiting', 'quarantined', 'local')),
                        payload TEXT NOT NULL,
                        offline BOOLEAN,
                        recordedAt DATETIME NOT NULL,
                        problem TEXT,
                        quarantinedAt DATETIME
                    )
                    """)
            try db.execute(sql: "CREATE INDEX event_queue ON event(service, seq) WHERE state = 'waiting'")
            // The ids delivered lately: an import that runs again (a kill between its commit and the
            // journal's removal, a journal restored from a backup) never sends an event twice.
            try db.execute(
                sql: """
                    CREATE TABLE sent (eventId TEXT PRIMARY KEY, sentAt DATETIME NOT NULL) WITHOUT ROWID
                    """)
            try db.execute(sql: "CREATE INDEX sent_age ON sent(sentAt)")
            // Small facts about sending: how many were delivered in all, when, the last problem.
            try db.execute(sql: "CREATE TABLE note (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID")
        }
        return migrator
    }
}

import GRDB

/// The outbox's tables (docs/analytics.md has the picture). An outbox written by an older walkscape
/// is brought forward when opened; nothing it held is lost on the way.
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
        migrator.registerMigration("v2: sent events kept in place") { db in
            // Sent events stay in `event` (state 'sent', payload emptied) until forgotten, instead of
            // being deleted and their ids written to a ledger of their own: marking a batch sent
            // then rewrites the few pages its rows and the queue's index hold, where the delete and
            // the ledger put its random ids on pages all over two indexes that grow with the
            // outbox. SQLite cannot widen a CHECK, so the table is made again. The events by state have
            // an index: the queue (waiting, by service, in order) and the counts are read from it,
            // not from the table's pages, which sent events fill for 30 days. A batch marked sent
            // moves from one run of its entries to another, each a few pages.
            let lastSeq = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'event'") ?? 0
            try db.execute(
                sql: """
                    CREATE TABLE event_new (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        eventId TEXT NOT NULL UNIQUE,
                        name TEXT NOT NULL,
                        tourId TEXT,
                        service TEXT,
                        state TEXT NOT NULL CHECK (state IN ('waiting', 'quarantined', 'local', 'sent')),
                        payload TEXT NOT NULL,
                        offline BOOLEAN,
                        recordedAt DATETIME NOT NULL,
                        problem TEXT,
                        quarantinedAt DATETIME,
                        sentAt DATETIME
                    );
                    INSERT INTO event_new
                        (seq, eventId, name, tourId, service, state, payload, offline, recordedAt, problem, quarantinedAt)
                    SELECT seq, eventId, name, tourId, service, state, payload, offline, recordedAt, problem, quarantinedAt
                    FROM event ORDER BY seq;
                    """)
            // The recording order goes on after the last event ever recorded, sent (deleted) ones
            // included: a service's reached mark is a seq, and must not cover events recorded later.
            try db.execute(sql: "DELETE FROM sqlite_sequence WHERE name = 'event_new'")
            try db.execute(
                sql: """
                    INSERT INTO sqlite_sequence (name, seq)
                    VALUES ('event_new', max(?, (SELECT ifnull(max(seq), 0) FROM event_new)))
                    """, arguments: [lastSeq])
            // The ledger's ids become sent events, after the rest in the recording order.
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO event_new (eventId, name, state, payload, recordedAt, sentAt)
                    SELECT eventId, '', 'sent', '', sentAt, sentAt FROM sent ORDER BY sentAt;
                    DROP TABLE event;
                    DROP TABLE sent;
                    ALTER TABLE event_new RENAME TO event;
                    CREATE INDEX event_held ON event(state, service, seq);
                    CREATE INDEX event_sent ON event(sentAt) WHERE state = 'sent';
                    """)
            // A walkscape of before this change may still be running on the same home (a walk started
            // before an upgrade): the ledger it reads and writes stays, as a view of the sent events.
            try db.execute(
                sql: """
                    CREATE VIEW sent AS SELECT eventId, sentAt FROM event WHERE state = 'sent';
                    CREATE TRIGGER sent_insert INSTEAD OF INSERT ON sent BEGIN
                        UPDATE event SET state = 'sent', sentAt = NEW.sentAt, payload = ''
                        WHERE eventId = NEW.eventId;
                        INSERT OR IGNORE INTO event (eventId, name, state, payload, recordedAt, sentAt)
                        VALUES (NEW.eventId, '', 'sent', '', NEW.sentAt, NEW.sentAt);
                    END;
                    CREATE TRIGGER sent_delete INSTEAD OF DELETE ON sent BEGIN
                        DELETE FROM event WHERE eventId = OLD.eventId AND state = 'sent';
                    END;
                    """)
        }
        return migrator
    }
}

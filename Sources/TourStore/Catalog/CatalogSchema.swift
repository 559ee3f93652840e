import GRDB

/// The catalog's tables (docs/store.md has the picture). Migrations only ever add: a catalog
/// written by an older walkscape is brought forward when opened.
enum CatalogSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // A tour of the service, as long as one of its languages is installed.
            try db.create(table: "tour") { t in
                t.primaryKey("id", .text)
                t.column("slug", .text).notNull()
                // The service it came from (scheme://host[:port]): its ids mean something only there.
                t.column("service", .text).notNull()
                t.column("isProtected", .boolean).notNull()
            }
            // One downloaded version of one language of a tour: its texts and points as the
            // service sent them, and what identifies its content whatever the URL signatures.
            try db.create(table: "version") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("tourId", .text).notNull().indexed().references("tour", onDelete: .cascade)
                t.column("language", .text).notNull()
                t.column("manifestVersion", .text).notNull()
                t.column("fingerprint", .text).notNull()
                t.column("title", .text).notNull()
                t.column("detail", .text).notNull()
                t.column("points", .text).notNull()
                t.column("offlineMap", .text)
                t.column("installedAt", .datetime).notNull()
            }
            // The version each installed language plays. Switching a tour to a new version is one
            // transaction that rewrites these rows: walkers see the old version or the new one.
            try db.create(table: "installation") { t in
                t.column("tourId", .text).notNull().references("tour", onDelete: .cascade)
                t.column("language", .text).notNull()
                t.column("versionId", .integer).notNull().unique().references("version")
                t.primaryKey(["tourId", "language"])
            }
            // A file in media/, named by the SHA-256 of its bytes.
            try db.create(table: "blob") { t in
                t.primaryKey("sha256", .text)
                t.column("size", .integer).notNull()
                t.column("addedAt", .datetime).notNull()
            }
            // The files of a version. A blob a version uses cannot be deleted (no cascade).
            try db.create(table: "versionFile") { t in
                t.column("versionId", .integer).notNull().indexed().references("version", onDelete: .cascade)
                t.column("kind", .text).notNull()
                t.column("pointId", .text)
                t.column("language", .text)
                t.column("location", .text).notNull()
                t.column("size", .integer).notNull()
                t.column("sha256", .text).notNull().indexed().references("blob")
                // Audio that does not play (garbage, a video without sound): why. Such a point
                // is announced instead of played.
                t.column("audioProblem", .text)
            }
            // How a file is known before it is downloaded: its URL without the signature, and its
            // declared size.
            try db.create(table: "source") { t in
                t.column("location", .text).notNull()
                t.column("size", .integer).notNull()
                t.column("sha256", .text).notNull().indexed().references("blob", onDelete: .cascade)
                t.primaryKey(["location", "size"])
            }
            // A download under way in partial/: what its first answer's validator was (for
            // If-Range) and during which boot it was written (a reboot may have lost its tail).
            try db.create(table: "partial") { t in
                t.column("location", .text).notNull()
                t.column("size", .integer).notNull()
                t.column("validator", .text)
                t.column("bootId", .text).notNull()
                t.column("startedAt", .datetime).notNull()
                t.primaryKey(["location", "size"])
            }
        }
        migrator.registerMigration("v2-loudness") { db in
            // A narration blob's EBU R128 loudness (docs/loudness.md), measured once. Goes with
            // its blob.
            try db.create(table: "loudness") { t in
                t.primaryKey("sha256", .text).references("blob", onDelete: .cascade)
                t.column("integrated", .double)
                t.column("truePeak", .double)
                t.column("clippedRuns", .integer).notNull()
                t.column("seconds", .double).notNull()
                t.column("measuredAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v3-loudness-damage") { db in
            // What the decoder found wrong in a narration that still plays (a file cut short), and
            // the method the row was measured by (`Loudness.method`): a row of another method,
            // such as every row from before this migration, is measured again when next needed.
            try db.alter(table: "loudness") { t in
                t.add(column: "damage", .text)
                t.add(column: "method", .text)
            }
        }
        migrator.registerMigration("v4-loudness-silence") { db in
            // The silence at either end of a narration (`lint` names a long one), and the one
            // channel a stereo narration sounds on. Rows from before are of an older method,
            // measured again when next needed.
            try db.alter(table: "loudness") { t in
                t.add(column: "leadingSilence", .double)
                t.add(column: "trailingSilence", .double)
                t.add(column: "onlyChannel", .integer)
            }
        }
        return migrator
    }

    /// Migrations a reader can do without: they only add columns that may be empty, and what reads
    /// them takes an absent one as empty. A catalog lacking only these is read as it is where it
    /// cannot be brought forward (a full disk, a read-only home, right after an upgrade).
    static let readersCanDoWithout: Set<String> = ["v3-loudness-damage", "v4-loudness-silence"]

    /// Whether this build can read the catalog as it is: every migration done, or only some that
    /// readers can do without missing.
    static func isReadable(_ db: Database) throws -> Bool {
        let applied = try migrator.appliedIdentifiers(db)
        let missing = Set(migrator.migrations).subtracting(applied)
        return missing.isSubset(of: readersCanDoWithout)
    }
}

import Foundation
import GRDBSQLite

/// An installed tour's slug and languages: what a shell completes after `walkscape walk`.
public struct InstalledName: Sendable, Hashable {
    public var slug: String
    /// Sorted.
    public var languages: [String]
}

extension TourStore {
    /// The installed tours' slugs and languages, for shell completion: one query, no migration and
    /// nothing written (Tab must stay quick and harmless). A catalog that is absent, busy or
    /// unreadable has none.
    ///
    /// SQLite itself, not GRDB: a reader of a WAL database makes its `-wal` and `-shm` files, which
    /// would then stay beside the catalog. When there is no `-wal` file, no walkscape has the catalog
    /// open and every change is in the main file, so it is opened `immutable` and nothing is made;
    /// when there is one, the files are already there and a plain read-only open adds nothing.
    public static func installedNames(_ location: StoreLocation) -> [InstalledName] {
        let path = location.catalog.path
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let inUse = FileManager.default.fileExists(atPath: path + "-wal")
        var escaped = ""
        for scalar in path.unicodeScalars {
            switch scalar {
            case "?", "#", "%": escaped += String(format: "%%%02X", scalar.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        let uri = "file:" + escaped + (inUse ? "" : "?immutable=1")
        var connection: OpaquePointer?
        defer { sqlite3_close_v2(connection) }
        guard sqlite3_open_v2(uri, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil) == SQLITE_OK else {
            return []
        }
        sqlite3_busy_timeout(connection, 200)
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        let sql = """
            SELECT tour.slug, installation.language FROM tour
            LEFT JOIN installation ON installation.tourId = tour.id
            ORDER BY tour.slug, installation.language
            """
        guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK else { return [] }
        var names: [InstalledName] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { return [] }
            guard let slugText = sqlite3_column_text(statement, 0) else { continue }
            let slug = String(cString: slugText)
            if names.last?.slug != slug { names.append(InstalledName(slug: slug, languages: [])) }
            if let language = sqlite3_column_text(statement, 1) {
                names[names.count - 1].languages.append(String(cString: language))
            }
        }
        return names
    }
}

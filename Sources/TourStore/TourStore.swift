import FileAccess
import Foundation
import GRDB
import TourModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The local content store (docs/store.md): the catalog (`catalog.sqlite`, SQLite in WAL
/// mode through GRDB, foreign keys on) and the blobs it points at. Reading it needs no network and
/// no lock; changing it needs the `StoreLock`.
public struct TourStore: Sendable {
    public let location: StoreLocation
    /// Opened only to read: the catalog could not be opened for writing (a full disk, a
    /// read-only home), so nothing can be downloaded, updated or removed until that changes.
    public let isReadOnly: Bool
    public let blobs: BlobStore
    let database: DatabaseQueue

    /// Opens the catalog, creating it (and the data folder) when there is none.
    public static func open(_ location: StoreLocation) throws(StoreError) -> TourStore {
        try checkFolder(location)
        do { try FileManager.default.createDirectory(at: location.dataFolder, withIntermediateDirectories: true) } catch
        {
            throw StoreError(
                .io, "cannot create the data folder \(location.dataFolder.path): \(error.localizedDescription)")
        }
        return try TourStore(location: location)
    }

    /// A data folder that is something else (a file left by a sync tool's conflict, a mistaken
    /// `mv`) is said: readers took it for an empty store ("No tours installed", exit 0), and a
    /// download said only that the folder could not be created.
    static func checkFolder(_ location: StoreLocation) throws(StoreError) {
        var info = stat()
        guard stat(location.dataFolder.path, &info) == 0 else { return }
        let kind = FileKind(mode: info.st_mode)
        guard kind != .folder else { return }
        throw StoreError(
            .io, "\(location.dataFolder.path): is \(kind.noun), not the tour store's folder; move it aside")
    }

    /// Opens the catalog if there is one: commands that only read never create files. A catalog
    /// that cannot be opened for writing (a full disk, a read-only home: SQLite cannot make its
    /// shared-memory file) is read as it is on disk, so installed tours stay listed and walkable.
    public static func openIfPresent(_ location: StoreLocation) throws(StoreError) -> TourStore? {
        try checkFolder(location)
        guard FileManager.default.fileExists(atPath: location.catalog.path) else { return nil }
        do { return try TourStore(location: location) } catch {
            // Whatever kept it from being opened for writing (a full disk or a read-only file
            // system named as such, a catalog SQLite cannot bring forward there): reading may
            // still work. When it does not, the first trouble is the one said.
            if let store = try? TourStore(readingOnly: location, immutable: false) { return store }
            guard let store = try? TourStore(readingOnly: location, immutable: true) else { throw error }
            return store
        }
    }

    /// The catalog read-only (`mode=ro`: with its log, when SQLite can still use the shared
    /// memory), else the file alone, taken as unchanging (`immutable`: no shared memory, no
    /// log): what the last checkpoint holds, which is everything after a command that finished
    /// (one that was killed may have left its last change in the log only). A catalog whose schema
    /// is older than this build's is read so only when what it lacks readers can do without
    /// (`CatalogSchema.isReadable`).
    private init(readingOnly location: StoreLocation, immutable: Bool) throws {
        self.location = location
        isReadOnly = true
        blobs = BlobStore(location: location)
        var configuration = Configuration()
        configuration.readonly = true
        configuration.foreignKeysEnabled = true
        configuration.label = "walkscape-catalog-read-only"
        var url = URLComponents()
        url.scheme = "file"
        url.path = location.catalog.path
        url.queryItems = [
            immutable ? URLQueryItem(name: "immutable", value: "1") : URLQueryItem(name: "mode", value: "ro")
        ]
        guard let path = url.string else {
            throw StoreError(.io, "\(location.catalog.path): not a path SQLite can take")
        }
        database = try DatabaseQueue(path: path, configuration: configuration)
        guard try database.read({ try CatalogSchema.isReadable($0) }) else {
            throw StoreError(.damaged, "\(location.catalog.path): older than this walkscape")
        }
    }

    private init(location: StoreLocation) throws(StoreError) {
        self.location = location
        isReadOnly = false
        blobs = BlobStore(location: location)
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.journalMode = .wal
        // A walk reading while a download commits waits a moment instead of failing.
        configuration.busyMode = .timeout(10)
        configuration.label = "walkscape-catalog"
        do {
            database = try DatabaseQueue(path: location.catalog.path, configuration: configuration)
            // The schema of a new catalog (or a migration) is written without waiting for the
            // disk at each of its steps: NORMAL in WAL mode is consistent, not durable, so a power
            // cut before the first durable commit only means it is made again.
            try database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = NORMAL") }
            try CatalogSchema.migrator.migrate(database)
            // Then a committed install survives a power cut, not only a kill: FULL, which the
            // queue's one connection keeps but for `write(durable: false)`, and whose first commit
            // carries the log before it to the disk. Set here, not in `prepareDatabase`: GRDB
            // turns WAL on after that, and sets NORMAL with it.
            try database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        } catch {
            // A read-only file system or a full disk is said as such, not as SQLite's "unable to
            // open database file" or "disk I/O error", and is not damage.
            let trouble = DiskTrouble.errno(writing: [location.catalog])
            if trouble != 0 {
                throw StoreError(
                    trouble == ENOSPC ? .noSpace : .io,
                    "\(location.catalog.path): cannot be opened as the tour catalog (\(String(cString: strerror(trouble))))"
                )
            }
            throw StoreError(
                .damaged, "\(location.catalog.path): cannot be opened as the tour catalog (\(Self.describe(error)))")
        }
    }

    /// The version of the SQLite library the catalog runs on (for `doctor`).
    public static func sqliteVersion() -> String {
        (try? DatabaseQueue().read { db in try String.fetchOne(db, sql: "SELECT sqlite_version()") }) ?? "unknown"
    }

    // MARK: Reading

    /// Every installed tour, by slug.
    public func installedTours() throws(StoreError) -> [InstalledTour] {
        try read { db in try Self.load(db, tourIDs: nil, media: blobs.media) }
    }

    /// One installed tour by its service id.
    public func installedTour(id: String) throws(StoreError) -> InstalledTour? {
        try read { db in try Self.load(db, tourIDs: [id], media: blobs.media).first }
    }

    static func load(_ db: Database, tourIDs: [String]?, media: URL) throws -> [InstalledTour] {
        var tourRequest = TourRecord.all()
        if let tourIDs { tourRequest = tourRequest.filter(keys: tourIDs) }
        let tours = try tourRequest.fetchAll(db)
        let loudness = try Self.loudness(db)
        var installed: [InstalledTour] = []
        for tour in tours {
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT version.* FROM installation JOIN version ON version.id = installation.versionId
                    WHERE installation.tourId = ? ORDER BY installation.language
                    """, arguments: [tour.id])
            var languages: [InstalledLanguage] = []
            for row in rows {
                let version = try VersionRecord(row: row)
                let files = try VersionFileRecord.filter(Column("versionId") == version.id).fetchAll(db)
                languages.append(try Self.language(version, files: files, loudness: loudness))
            }
            guard !languages.isEmpty else { continue }
            installed.append(
                InstalledTour(
                    id: tour.id, slug: tour.slug, service: tour.service,
                    isProtected: tour.isProtected, languages: languages, media: media))
        }
        return installed.sorted { ($0.slug, $0.id) < ($1.slug, $1.id) }
    }

    static func language(
        _ version: VersionRecord, files: [VersionFileRecord], loudness: [String: Loudness] = [:]
    ) throws -> InstalledLanguage {
        let decoder = WalkscapeJSON.decoder()
        let detail = try decoder.decode(TourDetail.self, from: Data(version.detail.utf8))
        let points = try decoder.decode([TourPoint].self, from: Data(version.points.utf8))
        let map = try version.offlineMap.map { try decoder.decode(OfflineMap.self, from: Data($0.utf8)) }
        return InstalledLanguage(
            language: version.language, manifestVersion: version.manifestVersion, fingerprint: version.fingerprint,
            installedAt: version.installedAt, detail: detail, points: points, offlineMap: map,
            files: files.map { file in
                InstalledFile(
                    role: FileRole(rawValue: file.kind) ?? .image, pointID: file.pointId, language: file.language,
                    identity: FileIdentity(location: file.location, size: file.size), sha256: file.sha256,
                    audioProblem: file.audioProblem,
                    loudness: file.kind == FileRole.audio.rawValue ? loudness[file.sha256] : nil)
            })
    }

    // MARK: Plumbing

    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do { return try database.read(body) } catch {
            throw StoreError(.damaged, "cannot read the tour catalog \(location.catalog.path): \(Self.describe(error))")
        }
    }

    /// Runs `body` in one transaction. `durable`: the commit waits until the log is on the disk
    /// (a power cut keeps it); otherwise it is only in the page cache until the next durable
    /// commit, which carries it to the disk with its own. A kill keeps both; a power cut may lose
    /// a commit that was not durable, never half of one (SQLite's WAL).
    func write<T>(durable: Bool = true, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            if durable { return try database.write(body) }
            return try database.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                let outcome = Result { () throws -> T in
                    var result: T?
                    try db.inTransaction {
                        result = try body(db)
                        return .commit
                    }
                    return result!
                }
                // FULL again whatever became of the transaction: the next commit must be durable.
                try db.execute(sql: "PRAGMA synchronous = FULL")
                return try outcome.get()
            }
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError where [.SQLITE_FULL, .SQLITE_IOERR].contains(error.resultCode) {
            throw StoreError(
                .noSpace,
                "cannot write the tour catalog \(location.catalog.path): \(Self.describe(error)); free some space and run the command again"
            )
        } catch {
            throw StoreError(
                .damaged, "cannot write the tour catalog \(location.catalog.path): \(Self.describe(error))")
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? "\(error.resultCode)" }
        if let error = error as? DecodingError { return "a stored answer cannot be read back (\(error))" }
        return "\(error)"
    }
}

import FileAccess
import Foundation
import GRDB
import GRDBSQLite
import TourModel

/// The analytics outbox (docs/analytics.md): every event recorded durably, in order, until its
/// service has it. SQLite through GRDB in the state folder, WAL mode, `synchronous = FULL`, so a
/// recorded event survives a kill or a power cut the moment `record` returns.
///
/// Only the live whitelist of keys is stored: the payload is an `AnalyticsEvent` in the live shape,
/// which has no other keys. `offline` is kept beside it, because it may only be known after the
/// event was recorded (the next attempt to reach the service says).
///
/// Several walkscape processes may use one outbox at once (a walk and a `sync`): each change is one
/// short transaction, and SQLite serialises them. Within a process, reads go on beside a commit
/// (a pool: one writing connection, reading ones on the log's snapshots), so a sender reading its
/// next batches never waits for the disk's flush of the last ones, nor for a checkpoint.
///
/// Sent events stay in the table for 30 days (`OutboxSchema`), so what asks about the events held
/// (the queue, the counts) names the index by state, `event_held`: without statistics SQLite would
/// rather walk the table from the first seq, through every sent event's page.
public struct Outbox: Sendable {
    public let url: URL
    let database: DatabasePool

    /// Opens the outbox, creating it (and its folder) when there is none.
    public static func open(at url: URL) throws(OutboxError) -> Outbox {
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw OutboxError(.unwritable, "cannot create \(folder.path): \(Self.reason(error))")
        }
        // The file is made private before SQLite sees it (an empty file is an empty database);
        // its -wal and -shm files take the same mode.
        let fd = Foundation.open(url.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        if fd >= 0 {
            close(fd)
        } else if errno != EEXIST {
            throw OutboxError(.unwritable, "cannot create \(url.path): \(String(cString: strerror(errno)))")
        }
        return try Outbox(url: url)
    }

    /// Opens the outbox if there is one: commands that only look never create files.
    public static func openIfPresent(at url: URL) throws(OutboxError) -> Outbox? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try Outbox(url: url)
    }

    /// A copy of the outbox at `url` (with its log) in a new private folder under `temporary`,
    /// opened: for looking at an outbox in a folder this user cannot write (another user's home,
    /// a read-only mount), where SQLite cannot open it in place (its log needs a shared-memory file
    /// beside it). The caller removes `folder` when done; the outbox itself is never changed.
    public static func copy(
        of url: URL, into temporary: URL = FileManager.default.temporaryDirectory
    ) throws(OutboxError) -> (outbox: Outbox, folder: URL) {
        let folder = temporary.appendingPathComponent("walkscape-outbox-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            let copy = folder.appendingPathComponent(url.lastPathComponent)
            try FileManager.default.copyItem(at: url, to: copy)
            let log = URL(fileURLWithPath: url.path + "-wal")
            if FileManager.default.fileExists(atPath: log.path) {
                try FileManager.default.copyItem(at: log, to: URL(fileURLWithPath: copy.path + "-wal"))
            }
            return (try Outbox(url: copy), folder)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            if let error = error as? OutboxError { throw error }
            throw OutboxError(.unwritable, "\(url.path): cannot be copied to look at it (\(Self.reason(error)))")
        }
    }

    private init(url: URL) throws(OutboxError) {
        self.url = url
        // Made and brought forward by one walkscape at a time. Two starting at once on a new
        // outbox both found no tables and both made them ("table event already exists"), or one
        // gave up at once on the other's lock (SQLite does not wait where waiting could deadlock),
        // and its event was lost. Held for the opening only; a folder where the lock file cannot
        // be made (read-only) is opened without it, for reading.
        let opening = LockFile(path: url.path + ".open.lock")
        if case .busy(let holder) = opening.acquireBlocking(
            purpose: "opening the analytics outbox", until: .now + .seconds(Self.openingPatience))
        {
            let who = holder.map { " (process \($0.pid))" } ?? ""
            throw OutboxError(
                .unwritable,
                "\(url.path): cannot be opened as the analytics outbox (another walkscape\(who) kept opening it for \(Int(Self.openingPatience)) s)"
            )
        }
        defer { opening.release() }
        var configuration = Configuration()
        configuration.journalMode = .wal
        // A walk recording while a sync marks a batch sent waits a moment instead of failing.
        configuration.busyMode = .timeout(5)
        configuration.label = "walkscape-outbox"
        // Marking a batch sent (one UPDATE of many rows under a CHECK) keeps a statement journal:
        // in memory, not a file made and unlinked in the temporary folder at every commit.
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA temp_store = MEMORY") }
        do {
            database = try DatabasePool(path: url.path, configuration: configuration)
            // A new outbox's schema is written without waiting for the disk at each step (NORMAL
            // in WAL mode: consistent, not durable); a power cut before the first event only means
            // it is made again.
            try database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = NORMAL") }
            try OutboxSchema.migrator.migrate(database)
            // Then recorded means on disk, not only in the page cache: a power cut keeps it, and the
            // first event's commit carries the schema with it. Set here, not in `prepareDatabase`:
            // GRDB turns WAL on after that, and sets NORMAL with it (the log synced only at
            // checkpoints). The pool's writing connection keeps it for its life (readers commit nothing).
            try database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        } catch {
            let kind = OutboxError.kind(of: error)
            throw OutboxError(
                kind,
                "\(url.path): cannot be opened as the analytics outbox (\(OutboxError.describe(error, systemErrno: DiskTrouble.errno(writing: [url]))))"
            )
        }
    }

    /// How long an opening waits for another walkscape's (as long as a commit waits for a lock).
    static let openingPatience = 5.0

    // MARK: Recording

    /// Copies the log into the database and empties it, when no other connection is reading
    /// (else it stays for the next checkpoint): what the process leaves is the database alone,
    /// whether or not its last connection closes before it ends.
    public func checkpoint() {
        try? database.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
    }

    /// Records one event durably. False when its `eventId` is known already (recorded, or sent
    /// lately): recording the same event twice is harmless.
    @discardableResult
    public func record(_ recording: Recording) throws(OutboxError) -> Bool {
        try record([recording]) == 1
    }

    /// Records events in one transaction, in order; returns how many were new.
    public func record(_ recordings: [Recording]) throws(OutboxError) -> Int {
        guard !recordings.isEmpty else { return 0 }
        return try recordEach(
            "record \(recordings.count == 1 ? "the analytics event \(recordings[0].event.name)" : "\(recordings.count) analytics events")"
        ) { insert in
            for recording in recordings { try insert(recording) }
        }
    }

    /// Records what `body` hands to `insert`, in ONE transaction, one recording at a time (an
    /// import of a long journal never holds all its events at once); returns how many were new.
    public func recordEach(
        _ what: String = "record analytics events", _ body: (_ insert: (Recording) throws -> Void) throws -> Void
    ) throws(OutboxError) -> Int {
        try write(what) { db in
            let insert = try db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO event (eventId, name, tourId, service, state, payload, offline, recordedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            var inserted = 0
            try body { recording in
                var event = recording.event
                let id = event.eventID ?? UUID().uuidString.lowercased()
                event.properties["eventId"] = .string(id)
                event.offline = nil
                let payload: Data
                do { payload = try WalkscapeJSON.encode(event, dialect: .live) } catch {
                    throw OutboxError(.unwritable, "cannot encode the analytics event \(event.name): \(error)")
                }
                let state = recording.origin == .local ? "local" : "waiting"
                try insert.execute(arguments: [
                    id, event.name, event.tourID, recording.origin.service, state,
                    String(decoding: payload, as: UTF8.self), recording.offline, recording.recordedAt,
                ])
                inserted += db.changesCount
            }
            return inserted
        }
    }

    // MARK: Sending

    /// The oldest events waiting for `service`, at most `limits.maxEvents` and about
    /// `limits.maxBytes` of body (always at least one, whatever its size).
    /// `after`: only events recorded after this one (those before it are on their way out).
    public func pending(for service: String, limits: BatchLimits, after: Int64 = 0) throws(OutboxError)
        -> [PendingEvent]
    {
        try pendingBatches(for: service, limits: limits, after: after, count: 1).first ?? []
    }

    /// Up to `count` batches in a row, as `pending` would give them one after another once each
    /// is on its way, read in one query (a sender reads ahead while a batch is out). A batch the
    /// read's end may have cut short is left for the next read, so each batch is whole.
    public func pendingBatches(for service: String, limits: BatchLimits, after: Int64 = 0, count: Int)
        throws(OutboxError) -> [[PendingEvent]]
    {
        let maxEvents = max(1, limits.maxEvents)
        let limit = maxEvents * max(1, count)
        let rows = try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT seq, eventId, payload, offline FROM event INDEXED BY event_held
                    WHERE state = 'waiting' AND service = ? AND seq > ? ORDER BY seq LIMIT ?
                    """, arguments: [service, after, limit])
        }
        var batches: [[PendingEvent]] = []
        var batch: [PendingEvent] = []
        var bytes = BatchLimits.envelopeBytes
        for row in rows {
            let payload: String = row["payload"]
            // `"offline":false,` and the comma between events.
            let size = payload.utf8.count + 17
            if !batch.isEmpty, bytes + size > limits.maxBytes || batch.count == maxEvents {
                batches.append(batch)
                if batches.count == count { return batches }
                batch = []
                bytes = BatchLimits.envelopeBytes
            }
            let seq: Int64 = row["seq"]
            let eventID: String = row["eventId"]
            // Not known when recorded and not resolved since: this attempt reaches the service.
            let offline = (row["offline"] as Bool?) ?? false
            guard let json = Self.withOffline(payload, offline) else {
                // Written by this outbox, so never expected; set aside rather than block the queue.
                try quarantine(seq: seq, reason: "the stored event cannot be read back", at: Date())
                continue
            }
            batch.append(PendingEvent(seq: seq, eventID: eventID, json: json, bytes: size))
            bytes += size
        }
        // The last batch is whole when it is full, or when the read found no more.
        if !batch.isEmpty, batch.count == maxEvents || rows.count < limit || batches.isEmpty {
            batches.append(batch)
        }
        return batches
    }

    /// The stored payload (a JSON object without `offline`: it is resolved later) with `offline`
    /// added: spliced in before the closing brace when the object has no `offline` key of its own
    /// anywhere, else decoded and encoded again. Nil when it is not an event at all.
    static func withOffline(_ payload: String, _ offline: Bool) -> Data? {
        let bytes = Array(payload.utf8)
        if bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}"), bytes.count > 2,
            !Self.holds(bytes, Self.offlineKey)
        {
            var json = Data(bytes.dropLast())
            json.append(contentsOf: Array((offline ? ",\"offline\":true}" : ",\"offline\":false}").utf8))
            return json
        }
        guard var event = try? WalkscapeJSON.decoder().decode(AnalyticsEvent.self, from: Data(bytes)) else {
            return nil
        }
        event.offline = offline
        return try? WalkscapeJSON.encode(event, dialect: .live)
    }

    static let offlineKey = Array("\"offline\"".utf8)

    /// Whether `needle` occurs in `bytes` (a byte search: Foundation's `String.contains` goes
    /// through NSString on Linux, a few percent of a sync).
    static func holds(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, bytes.count >= needle.count else { return false }
        var i = 0
        let last = bytes.count - needle.count
        while i <= last {
            if bytes[i] == first, bytes[i..<(i + needle.count)].elementsEqual(needle) { return true }
            i += 1
        }
        return false
    }

    /// Whether events for `service` recorded at or after `date` still wait (a command asks whether
    /// it recorded something to send).
    public func hasWaiting(for service: String, recordedSince date: Date) throws(OutboxError) -> Bool {
        try read { db in
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM event INDEXED BY event_held WHERE state = 'waiting' AND service = ? AND recordedAt >= ?)
                    """, arguments: [service, date]) ?? false
        }
    }

    /// The newest event's place in the recording order (0 when empty).
    public func lastSeq() throws(OutboxError) -> Int64 {
        try read { db in try Int64.fetchOne(db, sql: "SELECT max(seq) FROM event") ?? 0 }
    }

    /// The service took these events (204): they are kept as sent (their payload dropped), so an
    /// import run again skips their ids, in one transaction: a kill leaves them either waiting
    /// (sent again, same ids) or sent.
    public func markSent(_ events: [PendingEvent], at time: Date) throws(OutboxError) {
        guard !events.isEmpty else { return }
        try write("mark \(events.count) analytics events sent") { db in
            // One statement for the whole commit, its seqs handed over as one JSON array.
            var seqs = "["
            for (i, event) in events.enumerated() {
                if i > 0 { seqs += "," }
                seqs += String(event.seq)
            }
            seqs += "]"
            try db.execute(
                sql: """
                    UPDATE event SET state = 'sent', sentAt = ?, payload = ''
                    WHERE seq IN (SELECT value FROM json_each(?))
                    """, arguments: [time, seqs])
            let total = try Int.fetchOne(db, sql: "SELECT value FROM note WHERE key = 'sentTotal'") ?? 0
            try Self.setNote(db, "sentTotal", String(total + events.count))
            try Self.setNote(db, "lastDeliveredAt", ISO8601.format(time))
            try db.execute(sql: "DELETE FROM note WHERE key IN ('lastProblem', 'lastProblemAt')")
        }
    }

    /// Sets an event aside with the service's words: kept, never sent again unless released.
    public func quarantine(_ event: PendingEvent, reason: String, at time: Date) throws(OutboxError) {
        try quarantine(seq: event.seq, reason: reason, at: time)
    }

    func quarantine(seq: Int64, reason: String, at time: Date) throws(OutboxError) {
        try write("set an analytics event aside") { db in
            try db.execute(
                sql: "UPDATE event SET state = 'quarantined', problem = ?, quarantinedAt = ? WHERE seq = ?",
                arguments: [reason, time, seq])
        }
    }

    /// Events of `service` recorded up to `seq` whose `offline` was not known get the answer of the
    /// first attempt to reach the service after them: reached (false) or not (true).
    ///
    /// A reached service is one mark, "reached through seq" (a note), not a write to each event: a
    /// first flush of 10,000 events spent 22 ms rewriting them all before its second batch, only
    /// to delete them as they went. An event not known to be offline and recorded up to the mark
    /// is not offline; an unreachable answer marks only the unknown events after it.
    public func resolveOffline(service: String, throughSeq seq: Int64, offline: Bool) throws(OutboxError) {
        try write("note whether the service was reachable") { db in
            let reached = try Self.reachedMark(db, service)
            if !offline {
                if seq > reached { try Self.setNote(db, Self.reachedKey(service), String(seq)) }
                return
            }
            try db.execute(
                sql: """
                    UPDATE event SET offline = 1
                    WHERE offline IS NULL AND state = 'waiting' AND service = ? AND seq <= ? AND seq > ?
                    """, arguments: [service, seq, reached])
        }
    }

    /// The note that holds a service's reached mark.
    static func reachedKey(_ service: String) -> String { "reachedThrough " + service }

    /// Events of `service` recorded up to this seq went before an attempt that reached it.
    static func reachedMark(_ db: Database, _ service: String) throws -> Int64 {
        try reachedMarks(db)[service] ?? 0
    }

    /// Every service's reached mark.
    static func reachedMarks(_ db: Database) throws -> [String: Int64] {
        let prefix = reachedKey("")
        var marks: [String: Int64] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT key, value FROM note WHERE key LIKE 'reachedThrough %'") {
            let key: String = row["key"]
            if let mark = Int64(row["value"] as String) { marks[String(key.dropFirst(prefix.count))] = mark }
        }
        return marks
    }

    /// Remembers why the last delivery failed (cleared by the next one that succeeds).
    public func noteProblem(_ problem: String, at time: Date) throws(OutboxError) {
        try write("note a delivery problem") { db in
            try Self.setNote(db, "lastProblem", problem)
            try Self.setNote(db, "lastProblemAt", ISO8601.format(time))
        }
    }

    /// Forgets events sent before `date`: only an import run twice needs their ids, and that happens
    /// within moments of the first.
    public func forgetSent(before date: Date) throws(OutboxError) {
        try write("forget old sent ids") { db in
            try db.execute(sql: "DELETE FROM event WHERE state = 'sent' AND sentAt < ?", arguments: [date])
        }
    }

    // MARK: Looking and tidying

    public func summary(for service: String?) throws(OutboxError) -> OutboxSummary {
        try read { db in
            var summary = OutboxSummary()
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT state, service, count(*) AS n FROM event INDEXED BY event_held
                    WHERE state IN ('waiting', 'quarantined', 'local') GROUP BY state, service
                    """)
            {
                let n: Int = row["n"]
                let owner: String? = row["service"]
                switch row["state"] as String {
                case "waiting":
                    if let owner, owner == service {
                        summary.waiting += n
                    } else {
                        summary.waitingElsewhere[owner ?? "?", default: 0] += n
                    }
                case "quarantined": summary.quarantined += n
                default: summary.local += n
                }
            }
            let notes = try Dictionary(
                uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT key, value FROM note").map {
                    ($0["key"] as String, $0["value"] as String)
                })
            summary.sentTotal = notes["sentTotal"].flatMap { Int($0) } ?? 0
            summary.lastDeliveredAt = notes["lastDeliveredAt"].flatMap(ISO8601.parse)
            summary.lastProblem = notes["lastProblem"]
            summary.lastProblemAt = notes["lastProblemAt"].flatMap(ISO8601.parse)
            return summary
        }
    }

    /// The events held, in recording order (`states` nil: all of them).
    public func entries(states: Set<OutboxEntry.State>? = nil) throws(OutboxError) -> [OutboxEntry] {
        var all: [OutboxEntry] = []
        try forEachEntry(states: states) { all.append($0) }
        return all
    }

    /// Each event held, oldest first, one at a time: however many there are, only one is in memory
    /// (`analytics show` of 100,000 events took 391 MB when they were read whole).
    public func forEachEntry(
        states: Set<OutboxEntry.State>? = nil, _ body: (OutboxEntry) -> Void
    ) throws(OutboxError) {
        let decoder = WalkscapeJSON.decoder()
        try read { db in
            let reached = try Self.reachedMarks(db)
            let wanted = (states ?? Set(OutboxEntry.State.allCases)).map(\.rawValue).sorted()
            let marks = Array(repeating: "?", count: wanted.count).joined(separator: ", ")
            // Events set aside or local (few, as a rule) are found through the index by state;
            // waiting ones (maybe very many) by reading the table in order (left to itself, SQLite
            // would take the index and sort them all before handing over the first).
            let table =
                wanted.contains(OutboxEntry.State.waiting.rawValue)
                ? "event NOT INDEXED" : "event INDEXED BY event_held"
            let rows = try Row.fetchCursor(
                db, sql: "SELECT * FROM \(table) WHERE state IN (\(marks)) ORDER BY seq",
                arguments: StatementArguments(wanted))
            while let row = try rows.next() {
                guard let state = OutboxEntry.State(rawValue: row["state"]) else { continue }
                let payload: String = row["payload"]
                var event =
                    (try? decoder.decode(AnalyticsEvent.self, from: Data(payload.utf8)))
                    ?? AnalyticsEvent(
                        name: row["name"], tourID: row["tourId"], properties: ["eventId": .string(row["eventId"])])
                let seq: Int64 = row["seq"]
                let service: String? = row["service"]
                // Unknown, unless recorded before an attempt that reached its service.
                event.offline = row["offline"] ?? (seq <= (service.flatMap { reached[$0] } ?? 0) ? false : nil)
                body(
                    OutboxEntry(
                        seq: seq, state: state, service: service, event: event,
                        recordedAt: row["recordedAt"], problem: row["problem"]))
            }
        }
    }

    /// Events kept for `old` (waiting or quarantined) go to `new` instead: for a service that moved
    /// (another port or host) while events waited for it. Returns how many moved.
    public func move(from old: String, to new: String) throws(OutboxError) -> Int {
        try write("move the analytics events of \(old) to \(new)") { db in
            // What the old service's reached mark says of them goes with them.
            try db.execute(
                sql: """
                    UPDATE event SET offline = 0
                    WHERE offline IS NULL AND service = ? AND seq <= ? AND state IN ('waiting', 'quarantined')
                    """, arguments: [old, try Self.reachedMark(db, old)])
            try db.execute(
                sql: """
                    UPDATE event INDEXED BY event_held SET service = ?
                    WHERE service = ? AND state IN ('waiting', 'quarantined')
                    """,
                arguments: [new, old])
            return db.changesCount
        }
    }

    /// Quarantined events wait again (after the service was fixed, say); returns how many.
    public func releaseQuarantined() throws(OutboxError) -> Int {
        try write("release the quarantined analytics events") { db in
            try db.execute(
                sql:
                    "UPDATE event SET state = 'waiting', problem = NULL, quarantinedAt = NULL WHERE state = 'quarantined'"
            )
            return db.changesCount
        }
    }

    /// Deletes every event held (waiting, quarantined, local) and what is remembered of sending;
    /// returns how many events went.
    public func purge() throws(OutboxError) -> Int {
        try write("purge the analytics outbox") { db in
            try db.execute(sql: "DELETE FROM event WHERE state != 'sent'")
            let n = db.changesCount
            try db.execute(sql: "DELETE FROM event")
            try db.execute(sql: "DELETE FROM note")
            return n
        }
    }

    // MARK: Plumbing

    static func setNote(_ db: Database, _ key: String, _ value: String) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO note (key, value) VALUES (?, ?)", arguments: [key, value])
    }

    func write<T>(_ what: String, _ body: (Database) throws -> T) throws(OutboxError) -> T {
        do {
            return try database.write(body)
        } catch {
            throw failure(what, error)
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(OutboxError) -> T {
        // Reads run on reading connections: the system's word on a failure is that connection's.
        var readerErrno: Int32?
        do {
            return try database.read { db in
                do { return try body(db) } catch {
                    readerErrno = sqlite3_system_errno(db.sqliteConnection)
                    throw error
                }
            }
        } catch {
            throw failure("read the analytics outbox", error, systemErrno: readerErrno)
        }
    }

    /// SQLite's own words plus the system's (a full disk, a file size limit): SQLite's errno when
    /// it kept one, else what the files and the disk say now.
    /// `systemErrno`: the failing connection's, when it was not the writing one.
    private func failure(_ what: String, _ error: any Error, systemErrno known: Int32? = nil) -> OutboxError {
        var systemErrno =
            known ?? database.writeWithoutTransaction { db in sqlite3_system_errno(db.sqliteConnection) }
        if systemErrno == 0, let code = (error as? DatabaseError)?.resultCode,
            code == .SQLITE_IOERR || code == .SQLITE_FULL
        {
            systemErrno = DiskTrouble.errno(writing: [url, URL(fileURLWithPath: url.path + "-wal")])
        }
        return OutboxError(
            OutboxError.kind(of: error),
            "cannot \(what) in \(url.path): \(OutboxError.describe(error, systemErrno: systemErrno))")
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? CocoaError, let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain
        {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return error.localizedDescription
    }
}

import Analytics
import FileAccess
import Foundation
import Synchronization
import TourAPI
import TourModel

/// The outbox as the commands use it: opened with the old journal imported, and flushed to the
/// configured service under the send lock.
package enum AnalyticsStorage {
    /// Opens the outbox (making it if need be), after importing `outbox.jsonl` if there is one.
    package static func open(_ settings: Settings) throws(AppError) -> Outbox {
        let outbox = try shared(settings.paths.analyticsOutbox, making: true)!
        try importJournal(into: outbox, settings)
        return outbox
    }

    /// The outbox if there is one (or a journal to import into one): `status` and `show` make
    /// nothing on a machine that never recorded an event.
    package static func openIfPresent(_ settings: Settings) throws(AppError) -> Outbox? {
        if FileManager.default.fileExists(atPath: settings.paths.legacyJournal.path) { return try open(settings) }
        return try shared(settings.paths.analyticsOutbox, making: false)
    }

    /// For commands that only look (`analytics status`, `analytics show`): the outbox if there is
    /// one, or where it is in a folder this user cannot write (another user's home, a read-only
    /// mount), a copy of it (said on standard error) in `copy`, a folder the caller removes.
    package static func openForLooking(_ settings: Settings) throws(AppError) -> (outbox: Outbox?, copy: URL?) {
        let url = settings.paths.analyticsOutbox
        do {
            return (try openIfPresent(settings), nil)
        } catch {
            let folder = url.deletingLastPathComponent()
            guard FileManager.default.isReadableFile(atPath: url.path), access(folder.path, W_OK) != 0 else {
                throw error
            }
            do {
                let (outbox, copy) = try Outbox.copy(of: url)
                Console.err(
                    "note: \(folder.path) cannot be written here: showing a copy of \(url.lastPathComponent)")
                return (outbox, copy)
            } catch {
                throw AppError.failure(error.message)
            }
        }
    }

    /// The outboxes this process opened, by file. A command's recorders and the sending after the
    /// command share one: opening it again took 2-3 ms of every command that records.
    private static let opened = Mutex<[String: Outbox]>([:])

    private static func shared(_ url: URL, making: Bool) throws(AppError) -> Outbox? {
        do {
            return try opened.withLock { (open: inout [String: Outbox]) throws(OutboxError) -> Outbox? in
                if let outbox = open[url.path] { return outbox }
                guard let outbox = making ? try Outbox.open(at: url) : try Outbox.openIfPresent(at: url) else {
                    return nil
                }
                open[url.path] = outbox
                return outbox
            }
        } catch {
            throw AppError.failure(error.message)
        }
    }

    /// Lets go of the outboxes this process opened, as it ends: each is closed once nothing else
    /// holds it, its writing connection last, which copies the log into the database (GRDB's
    /// `close()` closes that connection first, and the log stayed behind).
    package static func closeAll() {
        opened.withLock { outboxes in
            // Something may still hold one as the process ends (closing is then left to the
            // exit, and the log stayed behind now and then on a busy machine): its log is emptied
            // into the database first.
            for outbox in outboxes.values { outbox.checkpoint() }
            outboxes = [:]
        }
    }

    private static func importJournal(into outbox: Outbox, _ settings: Settings) throws(AppError) {
        guard FileManager.default.fileExists(atPath: settings.paths.legacyJournal.path) else { return }
        let origins = EventOrigins(settings: settings)
        let report: JournalImport.Report?
        do {
            report = try JournalImport(
                journal: settings.paths.legacyJournal, outbox: outbox, origin: origins.ofJournalEvent
            )
            .run()
        } catch {
            throw AppError.failure(error.message)
        }
        if let kept = report?.keptAside {
            Console.err(
                "walkscape: note: \(settings.paths.legacyJournal.path) held lines that are no event (cut short by a crash?): the whole journal is kept as \(kept.path); its \(report?.read ?? 0) events are in the outbox"
            )
        }
    }

    /// `ServiceURL.key` of the configured service, or nil when none is configured (or its URL is
    /// not one walkscape uses).
    package static func serviceKey(_ settings: Settings) -> String? {
        (try? ServiceConnection.serviceURL(settings)).map(ServiceURL.key)
    }

    /// Sends what waits for the configured service. Nil when there is none configured, or another
    /// walkscape is sending and `waitForLock` is false (or it did not finish before the deadline).
    package static func flush(
        _ outbox: Outbox, settings: Settings, analytics: AnalyticsSettings, patience: Batcher.Patience,
        waitForLock: Bool
    ) async -> FlushReport? {
        guard let service = serviceKey(settings) else { return nil }
        let lock = LockFile(path: settings.paths.analyticsSendLock.path)
        let purpose = "sending analytics"
        let locked: LockFile.Acquisition
        if waitForLock {
            // The patience is a wall-clock deadline; the lock waits on the monotonic clock.
            let left = patience.deadline.map { max(0, $0.timeIntervalSinceNow) } ?? 365 * 86_400
            locked = await lock.acquire(purpose: purpose, until: .now + .seconds(left), interval: .milliseconds(250))
        } else {
            locked = lock.tryAcquire(purpose: purpose)
        }
        guard locked == .held else { return nil }
        defer { lock.release() }
        let connection = AnalyticsConnection(settings: settings, dialect: analytics.dialect)
        let batcher = Batcher(outbox: outbox, service: service, transport: connection, limits: analytics.limits)
        let report = await batcher.flush(patience)
        await connection.close()
        return report
    }
}

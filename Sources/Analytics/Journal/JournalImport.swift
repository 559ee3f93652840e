import FileAccess
import Foundation
import TourModel

/// Brings the event journal walkscape kept before the outbox (`state/outbox.jsonl`) into the
/// outbox, once, losing nothing and duplicating nothing whenever it is killed:
/// 1. the journal is locked (the lock its appenders took) and read;
/// 2. its events go into the outbox in ONE transaction, decoded a line at a time, each known by its `eventId` (an event
///    already there, or sent lately, is skipped);
/// 3. only then is the journal removed (or, when part of it was no event, renamed
///    `outbox.jsonl.unreadable` so those bytes stay for a person to look at).
/// A kill before 2 commits leaves the journal as it was; a kill between 2 and 3 leaves a journal
/// whose events the next import skips. A process that waited for the lock while another imported
/// finds the journal gone (unlinked) and does nothing.
public struct JournalImport: Sendable {
    public struct Report: Sendable, Hashable {
        /// Events read from the journal.
        public var read: Int
        /// Of those, new to the outbox.
        public var imported: Int
        /// Where bytes that were no event were kept, if there were any.
        public var keptAside: URL?
    }

    public let journal: URL
    public let outbox: Outbox
    /// Decides each event's origin: the journal did not record where its tours came from, the
    /// command line knows (installed tours, the configured service).
    public let origin: @Sendable (AnalyticsEvent) -> EventOrigin

    public init(journal: URL, outbox: Outbox, origin: @escaping @Sendable (AnalyticsEvent) -> EventOrigin) {
        self.journal = journal
        self.outbox = outbox
        self.origin = origin
    }

    /// Imports the journal if there is one (nil when there is none).
    public func run(now: Date = Date()) throws(OutboxError) -> Report? {
        let fd = open(journal.path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            // Opened for writing (it is removed once imported): an immutable journal is readable
            // and still refused here.
            throw OutboxError(
                .unreadable, "cannot open \(journal.path) to import it: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        guard flock(fd, LOCK_EX) == 0 else {
            throw OutboxError(.unreadable, "cannot lock \(journal.path): \(String(cString: strerror(errno)))")
        }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            throw OutboxError(.unreadable, "cannot read \(journal.path): \(String(cString: strerror(errno)))")
        }
        // Imported and removed by another walkscape while this one waited for the lock.
        if status.st_nlink == 0 { return nil }
        let data: Data
        do { data = try FileHandle(fileDescriptor: fd, closeOnDealloc: false).readToEnd() ?? Data() } catch {
            throw OutboxError(.unreadable, "cannot read \(journal.path): \(error.localizedDescription)")
        }
        // Read and recorded a line at a time inside the one transaction: a long journal costs its
        // bytes and one event, not every event at once (35 MB took 238 MB).
        var lines = JournalLines()
        let imported = try outbox.recordEach("import \(journal.path)") { insert in
            try lines.scan(data) { event in
                try insert(
                    Recording(
                        event: event, origin: origin(event), offline: event.offline,
                        recordedAt: event.timestamp ?? now))
            }
        }
        var keptAside: URL?
        if lines.unreadable.isEmpty {
            guard unlink(journal.path) == 0 || errno == ENOENT else {
                throw OutboxError(
                    .unwritable, "imported \(journal.path) but cannot remove it: \(String(cString: strerror(errno)))")
            }
        } else {
            let target = aside()
            guard rename(journal.path, target.path) == 0 else {
                throw OutboxError(
                    .unwritable, "imported \(journal.path) but cannot rename it: \(String(cString: strerror(errno)))")
            }
            keptAside = target
        }
        syncFolder()
        return Report(read: lines.count, imported: imported, keptAside: keptAside)
    }

    /// `outbox.jsonl.unreadable`, or `.unreadable.2`, ... when that is taken.
    private func aside() -> URL {
        let base = journal.path + ".unreadable"
        var candidate = base
        var n = 2
        while FileManager.default.fileExists(atPath: candidate) {
            candidate = "\(base).\(n)"
            n += 1
        }
        return URL(fileURLWithPath: candidate)
    }

    private func syncFolder() {
        Descriptor.syncFolder(journal.deletingLastPathComponent().path)
    }
}

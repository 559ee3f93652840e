import FileAccess
import Foundation
import TourModel
import Walk

/// Analytics events, appended durably to a JSON-lines file in the state folder until the analytics
/// outbox sends them: the walk's events and those of other commands (`login`, `signup`,
/// `voucher_redeemed`). Each line is one event in the live service's shape, with the
/// client-generated `properties.eventId` that lets a retried batch be de-duplicated and
/// `properties.platform` the dashboard reads.
public struct EventJournal: Sendable {
    public let url: URL

    public init(url: URL) {
        self.url = url
    }

    public func append(_ event: WalkEvent, eventID: UUID = UUID()) throws(WalkError) {
        try append(event.analyticsEvent, eventID: eventID)
    }

    public func append(_ event: AnalyticsEvent, eventID: UUID = UUID()) throws(WalkError) {
        var event = event
        event.properties["eventId"] = .string(eventID.uuidString.lowercased())
        event.properties["platform"] = .string(AnalyticsEvent.platform)
        do {
            var line = try WalkscapeJSON.encode(event, dialect: .live)
            line.append(UInt8(ascii: "\n"))
            try StateFolder.create(url.deletingLastPathComponent())
            let fd = open(url.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            defer { close(fd) }
            // Walks of different tours share the journal: one appender at a time, so a line cut
            // short can be taken back before anyone appends after it.
            guard flock(fd, LOCK_EX) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            var status = stat()
            guard fstat(fd, &status) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            // O_APPEND and the lock: lines never interleave; fsync makes each survive a crash.
            let outcome = line.withUnsafeBytes { Descriptor.writeAll(fd, $0) }
            if !outcome.succeeded {
                // A full disk (or a file size limit) took part of the line: cut it off again, or
                // the next line would be glued to it and both lost to the reader.
                if outcome.written > 0 { _ = ftruncate(fd, status.st_size) }
                throw POSIXError(POSIXErrorCode(rawValue: outcome.error) ?? .EIO)
            }
            guard fsync(fd) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            throw WalkError(
                "cannot record the analytics event \(event.name) in \(url.path): \(StateFolder.reason(error))")
        }
    }

    /// Every event recorded so far (for tests and the later outbox import); unreadable lines are skipped.
    public func events() -> [AnalyticsEvent] {
        lines().compactMap { try? WalkscapeJSON.decoder().decode(AnalyticsEvent.self, from: $0) }
    }

    /// The walk's own events recorded so far; other commands' events are skipped.
    public func read() -> [WalkEvent] {
        lines().compactMap { try? JSONDecoder().decode(WalkEvent.self, from: $0) }
    }

    private func lines() -> [Data] {
        guard let data = FileManager.default.contents(atPath: url.path) else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).map { Data($0) }
    }
}

import Analytics
import Foundation
import TourAPI
import TourModel

/// The analytics of one command (docs/analytics.md): each event is stamped (`EventStamp`) and
/// recorded in the outbox with its origin, durably, before the command goes on. With analytics
/// off nothing is recorded, and nothing is opened or made (no outbox, no id file, no HTTP client).
///
/// The outbox is opened on the first event, and the old event journal (`outbox.jsonl`) imported
/// into it then. A failure to open it is not remembered: the next event tries again (a disk that
/// was full may have room now).
package final class AnalyticsRecorder: @unchecked Sendable {
    package let settings: Settings
    /// The analytics settings, or why they cannot be read (a bad value in the config file).
    package let configuration: Result<AnalyticsSettings, AppError>
    private let lock = NSLock()
    private var stamp: EventStamp?

    package init(settings: Settings) {
        self.settings = settings
        configuration = Result { () throws(AppError) in try settings.analytics() }
    }

    /// True unless analytics is off (a bad setting counts as on: recording then says what is wrong).
    package var enabled: Bool { (try? configuration.get())?.enabled ?? true }

    /// Stamps and records `event` from `origin`. `offline`: known already (no service configured,
    /// or the background sender just failed to reach it); nil lets the next attempt decide.
    /// `eventID`: the id the caller fixed (a walk event held back and recorded again keeps its id).
    package func record(_ event: AnalyticsEvent, origin: EventOrigin, offline: Bool? = nil, eventID: UUID? = nil)
        throws(AppError)
    {
        let analytics = try configuration.get()
        guard analytics.enabled else { return }
        let outbox = try outbox()
        var event = event
        let stamped = lock.withLock { () -> EventStamp in
            if let stamp { return stamp }
            let made = EventStamp.load(settings.paths)
            stamp = made
            return made
        }
        stamped.apply(to: &event, origin: origin, eventID: eventID)
        do { try outbox.record(Recording(event: event, origin: origin, offline: offline)) } catch {
            throw AppError.failure(error.message)
        }
    }

    /// For commands whose work is done when the event is recorded (a login, a download): a lost
    /// event must not fail it, so it is said on stderr and the command goes on.
    /// `warn`: where the warning goes (a download's reporter, which keeps it off its progress line).
    package func recordOrWarn(
        _ event: AnalyticsEvent, origin: EventOrigin,
        warn: (String) -> Void = { Console.err($0) }
    ) {
        do { try record(event, origin: origin) } catch {
            warn("walkscape: warning: \(error.message)")
        }
    }

    /// The outbox, opened (made if need be) with the old journal imported: the process's one
    /// (`AnalyticsStorage`).
    package func outbox() throws(AppError) -> Outbox {
        try AnalyticsStorage.open(settings)
    }
}

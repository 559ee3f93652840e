import Analytics
import FileAccess
import Foundation
import TourModel
import Walk
import WalkRuntime

/// A walk's analytics: its events go into the outbox behind `WalkStateWriter`'s seam (a full or
/// read-only disk holds them in memory, in order, as for progress), and, when a service is
/// configured, a `BackgroundSender` sends them while the walk goes on. The walk's loop only ever
/// records (one short SQLite transaction) and nudges the sender; it never waits for the network.
///
/// `offline` is stamped when known at once: true for a tour of a service when no API is configured,
/// or when the sender's last attempt could not connect; otherwise the next attempt settles it.
package final class WalkAnalytics: WalkEventRecorder, @unchecked Sendable {
    package let recorder: AnalyticsRecorder
    package let origin: EventOrigin
    private let sender: BackgroundSender?
    private let connection: AnalyticsConnection?
    private let serviceConfigured: Bool

    /// `origin`: where the walked tour came from (an installed tour's service, or a tour folder).
    package init(settings: Settings, analytics: AnalyticsSettings, origin: EventOrigin) {
        recorder = AnalyticsRecorder(settings: settings)
        self.origin = origin
        let service = AnalyticsStorage.serviceKey(settings)
        serviceConfigured = service != nil
        guard analytics.enabled, let service else {
            sender = nil
            connection = nil
            return
        }
        let connection = AnalyticsConnection(settings: settings, dialect: analytics.dialect)
        self.connection = connection
        sender = BackgroundSender(lock: LockFile(path: settings.paths.analyticsSendLock.path)) { [recorder] in
            guard let outbox = try? recorder.outbox() else { return nil }
            return Batcher(outbox: outbox, service: service, transport: connection, limits: analytics.limits)
        }
        sender?.start()
    }

    package func append(_ event: WalkEvent, eventID: UUID) throws(WalkError) {
        guard recorder.enabled else { return }
        var offline: Bool?
        if origin != .local {
            if !serviceConfigured || sender?.reach == .unreachable { offline = true }
        }
        do { try recorder.record(event.analyticsEvent, origin: origin, offline: offline, eventID: eventID) } catch {
            throw WalkError(error.message)
        }
        sender?.nudge()
    }

    /// The walk is over: one last send, for at most a couple of seconds, then the HTTP client goes.
    package func finish() async {
        _ = await sender?.finish(within: .seconds(2))
        await connection?.close()
    }
}

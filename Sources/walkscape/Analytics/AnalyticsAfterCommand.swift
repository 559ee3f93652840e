import Analytics
import ArgumentParser
import Foundation
import Synchronization
import WalkscapeKit

/// A command that records analytics events (an account command, a download, a removal). After one
/// ends, what it recorded is sent to the configured service for a couple of seconds at most, so a
/// walker who only ever logs in and downloads is counted too; what cannot go waits for the next
/// command, a walk or `sync`. The walk sends in the background instead (`WalkAnalytics`).
protocol RecordsAnalytics {
    var global: GlobalOptions { get }
}

extension LoginCommand: RecordsAnalytics {}
extension RegisterCommand: RecordsAnalytics {}
extension RedeemCommand: RecordsAnalytics {}
extension DownloadCommand: RecordsAnalytics {}
extension UpdateCommand: RecordsAnalytics {}
extension VerifyCommand: RecordsAnalytics {}
extension RemoveCommand: RecordsAnalytics {}

enum AnalyticsAfterCommand {
    static let budget: TimeInterval = 2

    /// When the command began (`Walkscape.main`): what it recorded is what was recorded since.
    private static let commandStart = Mutex<Date>(Date())
    /// A sending begun before the command's end, and when it began.
    private static let early = Mutex<(sending: Task<Void, Never>, begun: Date)?>(nil)

    static func commandStarts() { commandStart.withLock { $0 = Date() } }

    /// Sends when `command` records analytics, analytics is on, a service is configured, and events
    /// for it were recorded since the command began (by this command: the outbox says, no state is
    /// kept). After a sending begun early (`beginEarly`), it waits for that one, and sends again
    /// only if something was recorded after it began (what the early one could not deliver waits).
    /// Silent either way: the command has said what it did. The process's last analytics step:
    /// the outbox is let go after it (`AnalyticsStorage.closeAll`).
    static func deliver(_ command: (any ParsableCommand)?) async {
        defer { AnalyticsStorage.closeAll() }
        var since = commandStart.withLock { $0 }
        if let (sending, begun) = early.withLock({ $0 }) {
            await sending.value
            since = begun
        }
        guard let recording = command as? any RecordsAnalytics, let settings = try? recording.global.settings()
        else { return }
        await send(settings, recordedSince: since)
    }

    /// Begins the sending now, beside the command's last steps when they need no network (a
    /// download's clean-up and the closing of its connections, about 4 ms), once everything the
    /// command records is recorded. `deliver` waits for it.
    static func beginEarly(_ command: any RecordsAnalytics) {
        guard let settings = try? command.global.settings() else { return }
        let since = commandStart.withLock { $0 }
        let begun = Date()
        let sending = Task { await send(settings, recordedSince: since) }
        early.withLock { $0 = (sending, begun) }
    }

    private static func send(_ settings: Settings, recordedSince start: Date) async {
        guard let analytics = try? settings.analytics(),
            analytics.enabled,
            let service = AnalyticsStorage.serviceKey(settings),
            let outbox = try? AnalyticsStorage.openIfPresent(settings),
            (try? outbox.hasWaiting(for: service, recordedSince: start)) == true
        else { return }
        _ = await AnalyticsStorage.flush(
            outbox, settings: settings, analytics: analytics,
            patience: .init(deadline: Date() + budget, schedule: .afterCommand, maxUnreachable: 1),
            waitForLock: false)
    }
}

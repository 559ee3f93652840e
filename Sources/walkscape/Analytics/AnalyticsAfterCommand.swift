import Analytics
import ArgumentParser
import Foundation
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

    /// Sends when `command` records analytics, analytics is on, a service is configured, and events
    /// for it were recorded since `start` (by this command: the outbox says, no state is kept).
    /// Silent either way: the command has said what it did. The process's last analytics step: the
    /// outbox is let go after it (`AnalyticsStorage.closeAll`).
    static func deliver(_ command: (any ParsableCommand)?, recordedSince start: Date) async {
        defer { AnalyticsStorage.closeAll() }
        guard let recording = command as? any RecordsAnalytics,
            let settings = try? recording.global.settings(), let analytics = try? settings.analytics(),
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

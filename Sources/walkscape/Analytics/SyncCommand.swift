import Analytics
import ArgumentParser
import Foundation
import TourAPI
import TourModel
import WalkscapeKit

/// `walkscape sync`: sends the analytics outbox to the configured service now.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Send the analytics events waiting for the service now, and say what is left.",
        discussion: """
            Events go in batches, oldest first. A batch the service cannot take now (it fails, is busy, \
            or cannot be reached) is tried again, with waits growing from a quarter second to 8 s, until \
            --max-time of failures in all (the time batches the service took spent on their way does \
            not count: a slow service that takes every batch is sent everything); three tries in a row \
            that cannot connect at all end it sooner. An event the \
            service refuses (HTTP 400) is quarantined with the service's words and not sent again \
            unless --retry-quarantined. Exit 0 when nothing waits any more; 69 when the service cannot \
            be reached, 75 when it failed, and the events wait for the next sync.

            Examples:
              walkscape sync
              walkscape sync --json
              walkscape sync --max-time 300 --retry-quarantined
            """)

    @OptionGroup var global: GlobalOptions

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Give up after this many seconds of failures in all (default 60); batches the service takes do not count.",
            valueName: "s"))
    var maxTime: Double = 60

    @Flag(name: .long, help: "Send the quarantined events again too (after the service was fixed, say).")
    var retryQuarantined = false

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    func validate() throws {
        try Limits.syncTime.check(maxTime, flag: "--max-time")
    }

    /// What `sync` says, in words or as JSON.
    struct Report: Encodable {
        var sent: Int
        var waiting: Int
        var quarantined: Int
        var quarantinedNow: Int
        var local: Int
        var waitingForOtherServices: Int
        var problem: String?
    }

    func run() async throws {
        let settings = try global.settings()
        let analytics = try settings.analytics()
        guard analytics.enabled else {
            if json {
                try JSONOutput.write(["sent": 0])
            } else {
                Console.out("Analytics is off (\(analytics.disabledBy ?? "")): nothing is sent.")
            }
            return
        }
        let service = ServiceURL.key(try ServiceConnection.serviceURL(settings))
        guard let outbox = try AnalyticsStorage.openIfPresent(settings) else {
            return try show(
                Report(sent: 0, waiting: 0, quarantined: 0, quarantinedNow: 0, local: 0, waitingForOtherServices: 0))
        }
        if retryQuarantined {
            do { _ = try outbox.releaseQuarantined() } catch { throw AppError.failure(error.message) }
        }
        let patience = Batcher.Patience(
            deadline: Date().addingTimeInterval(maxTime), schedule: .onDemand, maxUnreachable: 3,
            deliveriesDoNotCount: true)
        guard
            let flush = await AnalyticsStorage.flush(
                outbox, settings: settings, analytics: analytics, patience: patience,
                waitForLock: true)
        else {
            throw AppError(
                kind: .temporary,
                message: "another walkscape kept sending for \(Int(maxTime)) s; try again when it is done")
        }
        let summary: OutboxSummary
        do { summary = try outbox.summary(for: service) } catch { throw AppError.failure(error.message) }
        let report = Report(
            sent: flush.sent, waiting: summary.waiting, quarantined: summary.quarantined,
            quarantinedNow: flush.quarantined, local: summary.local,
            waitingForOtherServices: summary.waitingElsewhere.values.reduce(0, +),
            problem: summary.waiting > 0 ? flush.problem : nil)
        try show(report)
        guard summary.waiting > 0 else { return }
        let left = "\(summary.waiting) event\(summary.waiting == 1 ? "" : "s") still waiting"
        switch flush.outcome {
        case .stopped(let reason, true, _):
            throw AppError.unavailable("\(left): \(reason)")
        case .failed(let reason), .outboxFailed(let reason):
            throw AppError.failure("\(left): \(reason)")
        default:
            throw AppError(
                kind: .temporary, message: "\(left): \(flush.problem ?? "out of time"); walkscape sync again later")
        }
    }

    private func show(_ report: Report) throws {
        if json { return try JSONOutput.write(report) }
        var line =
            "Sent \(report.sent) event\(report.sent == 1 ? "" : "s"); \(report.waiting) waiting, \(report.quarantined) quarantined"
        if report.quarantinedNow > 0 {
            line += " (\(report.quarantinedNow) just now: walkscape analytics status says why)"
        }
        line += "."
        if report.waitingForOtherServices > 0 {
            line += " \(report.waitingForOtherServices) wait for another service (walkscape analytics status)."
        }
        Console.out(line)
    }
}

import Analytics
import ArgumentParser
import Foundation
import TourAPI
import TourModel
import WalkscapeKit

/// `walkscape analytics status|show|move|on|off|purge`: what is recorded and sent, and the switch.
struct AnalyticsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analytics",
        abstract: "See what analytics events are kept and sent, turn them on or off, or delete them.",
        discussion: """
            walkscape records what happens on a walk (tour started, points heard, tour completed or \
            abandoned), downloads and account events, and sends those of tours from the configured \
            service to it, for the curators' dashboard. Events of tour folders stay on this machine. \
            Nothing is recorded or sent with --no-analytics, DO_NOT_TRACK=1, or `analytics = off` in \
            the config file (what `walkscape analytics off` writes). README.md says what is sent.

            Examples:
              walkscape analytics status
              walkscape analytics show --json
              walkscape analytics off
              walkscape analytics move http://127.0.0.1:8080
              walkscape analytics purge
            """,
        subcommands: [Status.self, Show.self, Move.self, On.self, Off.self, Purge.self],
        defaultSubcommand: Status.self)

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Say whether analytics is on, and what waits, was refused, or stays local.")

        @OptionGroup var global: GlobalOptions

        @Flag(name: .long, help: "Print the status as JSON.")
        var json = false

        struct Report: Encodable {
            struct Refused: Encodable {
                var name: String
                var eventId: String?
                var recordedAt: Date
                var problem: String?
            }

            var enabled: Bool
            var disabledBy: String?
            var dialect: String
            var service: String?
            var anonymousId: String?
            var device: String
            var osVersion: String
            var outbox: String
            var waiting: Int
            var waitingForOtherServices: [String: Int]
            var quarantined: Int
            var local: Int
            var sent: Int
            var lastSentAt: Date?
            var lastProblem: String?
            var lastProblemAt: Date?
            var refused: [Refused]
        }

        func run() async throws {
            let settings = try global.settings()
            let analytics = try settings.analytics()
            let service = AnalyticsStorage.serviceKey(settings)
            let (outbox, copy) = try AnalyticsStorage.openForLooking(settings)
            defer { if let copy { try? FileManager.default.removeItem(at: copy) } }
            let summary: OutboxSummary
            let refused: [OutboxEntry]
            do {
                summary = try outbox?.summary(for: service) ?? OutboxSummary()
                refused = try outbox?.entries(states: [.quarantined]) ?? []
            } catch { throw AppError.failure(error.message) }
            let device = DeviceDescription.current()
            let report = Report(
                enabled: analytics.enabled, disabledBy: analytics.disabledBy, dialect: analytics.dialect.rawValue,
                service: service, anonymousId: AnonymousID.read(settings.paths.anonymousID), device: device.device,
                osVersion: device.osVersion, outbox: settings.paths.analyticsOutbox.path, waiting: summary.waiting,
                waitingForOtherServices: summary.waitingElsewhere, quarantined: summary.quarantined,
                local: summary.local,
                sent: summary.sentTotal, lastSentAt: summary.lastDeliveredAt, lastProblem: summary.lastProblem,
                lastProblemAt: summary.lastProblemAt,
                refused: refused.map {
                    .init(
                        name: $0.event.name, eventId: $0.event.eventID, recordedAt: $0.recordedAt, problem: $0.problem)
                })
            if json { return try JSONOutput.write(report) }
            var lines: [String] = []
            if let off = analytics.disabledBy {
                lines.append("Analytics: off (\(off)): nothing is recorded or sent.")
            } else if let service {
                lines.append(
                    "Analytics: on; events of tours from \(service) are sent to it\(analytics.dialect == .guide ? " (guide dialect)" : "")."
                )
            } else {
                lines.append("Analytics: on; no API URL is configured, so events wait here.")
            }
            lines.append(
                "Sent with each event: anonymous id \(report.anonymousId ?? "(made with the first event)"), device \"\(device.device)\", OS \"\(device.osVersion)\", platform linux."
            )
            lines.append("Waiting: \(summary.waiting)" + (service.map { " for \($0)" } ?? ""))
            for (other, count) in summary.waitingElsewhere.sorted(by: { $0.key < $1.key }) {
                lines.append(
                    "Waiting for \(other) (not the configured service): \(count)"
                        + (service == nil ? "" : "; if the service moved there, walkscape analytics move \(other)"))
            }
            lines.append("Local only (tour folders, never sent): \(summary.local)")
            lines.append("Quarantined (refused by the service, not sent again): \(summary.quarantined)")
            for entry in refused.prefix(10) {
                lines.append("  \(entry.event.name) of \(HumanDate.format(entry.recordedAt)): \(entry.problem ?? "")")
            }
            if refused.count > 10 { lines.append("  ... and \(refused.count - 10) more (walkscape analytics show)") }
            lines.append(
                "Sent in all: \(summary.sentTotal)"
                    + (summary.lastDeliveredAt.map { ", last on \(HumanDate.format($0))" } ?? ""))
            if let problem = summary.lastProblem {
                lines.append(
                    "Last problem\(summary.lastProblemAt.map { " (\(HumanDate.format($0)))" } ?? ""): \(problem)")
            }
            lines.forEach { Console.out($0) }
        }
    }

    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "move",
            abstract: "Send the events kept for another service to the configured one (the service moved).",
            discussion: """
                Events wait for the service whose tours they are about, by its URL. When that service \
                moves (another port or host), name its old URL here: its waiting and quarantined \
                events go to the configured service instead, and the next sync sends them.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The service's old URL, as analytics status lists it.", valueName: "old-url"))
        var from: String

        func run() async throws {
            let settings = try global.settings()
            guard let service = AnalyticsStorage.serviceKey(settings) else {
                throw AppError.usage(
                    "no API URL is configured to move the events to: set --api-url URL, WALKSCAPE_API_URL or api-url")
            }
            let old = URL(string: from).map(ServiceURL.key) ?? from
            guard old != service else { throw AppError.usage("\(old) is the configured service already") }
            let outbox = try AnalyticsStorage.openIfPresent(settings)
            let moved: Int
            do { moved = try outbox?.move(from: old, to: service) ?? 0 } catch {
                throw AppError.failure(error.message)
            }
            Console.out(
                moved == 0
                    ? "No events were kept for \(old)."
                    : "Moved \(moved) event\(moved == 1 ? "" : "s") from \(old) to \(service); walkscape sync sends them."
            )
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "List the events kept here, exactly as they would be sent.")

        @OptionGroup var global: GlobalOptions

        @Option(
            name: .long,
            help: ArgumentHelp("Only events in this state: waiting, quarantined or local.", valueName: "state"))
        var state: OutboxEntry.State?

        @Flag(name: .long, help: "Print the events as JSON (one array; each event in the live shape plus its state).")
        var json = false

        struct Entry: Encodable {
            var state: OutboxEntry.State
            var service: String?
            var recordedAt: Date
            var problem: String?
            var event: AnalyticsEvent

            func encode(to encoder: any Encoder) throws {
                try event.encode(to: encoder, dialect: .live)
                var c = encoder.container(keyedBy: Key.self)
                try c.encode(state, forKey: .state)
                try c.encodeIfPresent(service, forKey: .service)
                try c.encode(recordedAt, forKey: .recordedAt)
                try c.encodeIfPresent(problem, forKey: .problem)
            }

            enum Key: String, CodingKey { case state, service, recordedAt, problem }
        }

        func run() async throws {
            let settings = try global.settings()
            let (outbox, copy) = try AnalyticsStorage.openForLooking(settings)
            defer { if let copy { try? FileManager.default.removeItem(at: copy) } }
            let states = state.map { Set([$0]) }
            // Streamed: one event in memory at a time, however many are kept.
            if json {
                let writer = JSONOutput.ArrayWriter<Entry>()
                var failure: (any Error)?
                do {
                    try outbox?.forEachEntry(states: states) { e in
                        guard failure == nil else { return }
                        do {
                            try writer.append(
                                Entry(
                                    state: e.state, service: e.service, recordedAt: e.recordedAt, problem: e.problem,
                                    event: e.event))
                        } catch { failure = error }
                    }
                } catch {
                    throw AppError.failure(error.message)
                }
                if let failure { throw failure }
                return try writer.finish()
            }
            var lines: [String] = []
            var any = false
            do {
                try outbox?.forEachEntry(states: states) { entry in
                    any = true
                    let e = entry.event
                    var line = "\(e.timestamp.map(ISO8601.format) ?? "-")  \(entry.state.rawValue)  \(e.name)"
                    if let tour = e.tourID { line += "  tour \(tour)" }
                    if let point = e.pointID { line += "  point \(point)" }
                    if e.offline == true { line += "  offline" }
                    if let problem = entry.problem { line += "  (\(problem))" }
                    lines.append(line)
                    if lines.count >= 512 {
                        Console.outLines(lines)
                        lines.removeAll(keepingCapacity: true)
                    }
                }
            } catch {
                throw AppError.failure(error.message)
            }
            Console.outLines(lines)
            if !any { Console.out("No analytics events are kept here.") }
        }
    }

    struct On: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "on",
            abstract: "Record analytics events and send them (writes `analytics = on` in the config file).")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try AnalyticsCommand.set("on", global)
        }
    }

    struct Off: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "off",
            abstract:
                "Record and send nothing (writes `analytics = off` in the config file); what is kept stays until purged."
        )

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try AnalyticsCommand.set("off", global)
        }
    }

    struct Purge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "purge",
            abstract: "Delete every analytics event kept here: waiting, quarantined and local.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let settings = try global.settings()
            let outbox = try AnalyticsStorage.openIfPresent(settings)
            let deleted: Int
            do { deleted = try outbox?.purge() ?? 0 } catch { throw AppError.failure(error.message) }
            Console.out("Deleted \(deleted) analytics event\(deleted == 1 ? "" : "s").")
        }
    }

    /// Writes the switch, then says what is in force (DO_NOT_TRACK or a flag may still say off).
    static func set(_ value: String, _ global: GlobalOptions) throws {
        let before = try global.settings()
        try ConfigFile.set("analytics", to: value, in: before.paths.configFile)
        let now = try global.settings().analytics()
        let file = before.paths.configFile.path
        switch (value == "on", now.disabledBy) {
        case (true, nil):
            Console.out("Analytics is on: events of tours from the configured service are sent to it.")
        case (true, let off?):
            Console.out("Wrote analytics = on in \(file), but analytics stays off: \(off).")
        case (false, nil):
            Console.out("Wrote analytics = off in \(file), but WALKSCAPE_ANALYTICS turns it on here.")
        case (false, _):
            Console.out(
                "Analytics is off: nothing is recorded or sent. What was kept stays until `walkscape analytics purge`.")
        }
    }
}

extension OutboxEntry.State: ExpressibleByArgument {}

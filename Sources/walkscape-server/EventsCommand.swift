import ArgumentParser
import Foundation
import TourModel
import WalkscapeServer

/// `walkscape-server events [--json]`: what analytics the server received.
struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract:
            "Show the analytics events received: counts (received, unique, duplicates by eventId) and each event.",
        discussion: """
            --json prints {"received", "unique", "duplicates", "events": [...]}, each event in the live shape
            plus eventId, requestUserId (the bearer's user), receivedAt and duplicate.
            """)

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var data: DataOption

    func run() throws {
        let summary = try Admin(dataDirectory: try data.directory(), existing: true).events()
        if json {
            let encoder = WalkscapeJSON.encoder()
            encoder.outputFormatting.insert(.prettyPrinted)
            AdminOutput.json(try encoder.encode(summary))
            return
        }
        AdminOutput.line("received \(summary.received), unique \(summary.unique), duplicates \(summary.duplicates)")
        for r in summary.events {
            var line = "\(ISO8601.format(r.event.timestamp ?? r.receivedAt))  \(r.event.name)"
            for (key, value) in [
                ("tour", r.event.tourID), ("point", r.event.pointID), ("user", r.event.userID),
                ("anonymous", r.event.anonymousID), ("eventId", r.eventID),
            ] {
                if let value { line += "  \(key)=\(value)" }
            }
            if r.duplicate { line += "  (duplicate)" }
            AdminOutput.line(line)
        }
    }
}

import ArgumentParser
import Foundation
import TourModel
import WalkscapeServer

/// `walkscape-server stats [--json]`: what the server did, from its data folder.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract:
            "Show counts: users, vouchers, grants, events, and registrations, logins, token refreshes (used and refused).",
        discussion:
            "A client test reads `stats --json` to check, say, that parallel requests with an expiring token caused exactly one refresh."
    )

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var data: DataOption

    func run() throws {
        let stats = try Admin(dataDirectory: try data.directory(), existing: true).stats()
        if json {
            AdminOutput.json(try WalkscapeJSON.encoder().encode(stats))
        } else {
            for (key, value) in stats.sorted(by: { $0.key < $1.key }) { AdminOutput.line("\(key)\t\(value)") }
        }
    }
}

import ArgumentParser
import Foundation
import TourAPI
import TourModel
import WalkscapeKit

/// `walkscape my-tours`: the tours vouchers have unlocked for the logged-in user.
struct MyToursCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "my-tours",
        abstract: "List the tours unlocked for you (by vouchers).",
        discussion: """
            Examples:
              walkscape my-tours
              walkscape my-tours --json
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print the tours as JSON.")
    var json = false

    struct Row: Encodable {
        var tourId: String
        var tourTitle: String?
        var tourSlug: String?
        var grantedAt: Date?
    }

    func run() async throws {
        let settings = try global.settings()
        let granted = try await ServiceConnection.run(settings) { client in try await client.myTours() }
        let rows = granted.tours.map {
            Row(tourId: $0.tourID, tourTitle: $0.tourTitle, tourSlug: $0.tourSlug, grantedAt: $0.grantedAt)
        }
        if json { return try JSONOutput.write(rows) }
        guard !rows.isEmpty else {
            Console.out("No tours unlocked yet (walkscape redeem CODE unlocks one).")
            return
        }
        var table = TextTable(header: ["TOUR", "TITLE", "UNLOCKED"])
        table.rows = rows.map {
            [$0.tourSlug ?? $0.tourId, $0.tourTitle ?? "-", $0.grantedAt.map(HumanDate.format) ?? "-"]
        }
        Console.out(table.render())
    }
}

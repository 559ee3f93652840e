import ArgumentParser
import Foundation
import TourAPI
import TourModel
import WalkscapeKit

/// `walkscape redeem`: unlocks the tour a voucher belongs to.
struct RedeemCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redeem",
        abstract: "Redeem a voucher code: unlocks the tour the voucher belongs to.",
        discussion: """
            Prints the tour the voucher unlocked, which may not be the one you had in mind. Needs a \
            login. Exit codes: 0 unlocked, 66 no such voucher, 65 expired or used up, 73 already \
            unlocked, 77 not logged in.

            Examples:
              walkscape redeem SPRING-2026
              walkscape redeem spring-2026 --json
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The voucher code (case and surrounding spaces do not matter).", valueName: "code"))
    var code: String

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    func validate() throws {
        if code.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("the voucher code is empty")
        }
    }

    struct Report: Encodable {
        var tourId: String
        var tourTitle: String
        var tourSlug: String?
    }

    func run() async throws {
        let settings = try global.settings()
        let (report, userID) = try await ServiceConnection.run(settings) { client in
            let redemption = try await client.redeem(code)
            var title = redemption.tourTitle
            var slug = redemption.tourSlug
            if title == nil || slug == nil,
                let tour = try? await client.tours().first(where: { $0.id == redemption.tourID })
            {
                title = title ?? tour.title.best(settings.language)
                slug = slug ?? tour.slug
            }
            let userID = try await client.session.credentials()?.userID
            return (Report(tourId: redemption.tourID, tourTitle: title ?? redemption.tourID, tourSlug: slug), userID)
        }
        // The voucher's own tour id, as the service named it: never the TOUR the user had in mind.
        AccountEvents(settings: settings).record(.voucherRedeemed, userID: userID, tourID: report.tourId)
        if json { return try JSONOutput.write(report) }
        Console.out("Unlocked: \(report.tourTitle)")
    }
}

import Foundation
import TestSupport
import Testing

/// A server that speaks the published guide's dialect (`--dialect guide`): the same commands work,
/// decoding the guide's shapes.
@Suite(.serialized)
struct GuideDialectCommandTests {
    @Test func theWholeJourneyWorksAgainstTheGuidesDialect() async throws {
        let tours = try TemporaryDirectory()
        let server = try await AccountJourneyTests.server(.init(dialect: "guide"), tours: tours)
        try server.addVoucher("GARDEN", tour: AccountJourneyTests.garden.id)
        let walker = try ServiceWalker(server)
        let registered = try walker.register("ada@example.org", password: AccountJourneyTests.password)
        #expect(registered.status == 0, "\(registered.stderr)")
        #expect(try walker.run(["whoami"]).stdout.hasPrefix("ada@example.org"))

        let locked = try walker.run(["tours", "-l", "it"])
        #expect(locked.status == 0, "\(locked.stderr)")
        let lines = locked.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first { $0.hasPrefix("secret-garden ") }?.hasSuffix("locked") == true)
        #expect(
            lines.first { $0.hasPrefix("florence-duomo-pitti ") }?.contains("Firenze: dal Duomo a Palazzo Pitti")
                == true)

        let redeemed = try walker.run(["redeem", "garden"])
        #expect(redeemed.status == 0, "\(redeemed.stderr)")
        #expect(redeemed.stdout.hasPrefix("Unlocked: secret-garden"))
        #expect(
            try walker.run(["tours"]).stdout.split(separator: "\n").first { $0.hasPrefix("secret-garden ") }?.hasSuffix(
                "unlocked") == true)
        #expect(try walker.run(["my-tours"]).stdout.contains("secret-garden"))

        let shown = try walker.run(["show", "florence", "-l", "it"])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.hasPrefix("Firenze: dal Duomo a Palazzo Pitti (florence-duomo-pitti)"))
        #expect(shown.stdout.contains("Points (5):"))
        walker.expectNoTokenPrinted()
        await server.stop()
    }
}

import Foundation
import TestSupport
import Testing
import TourModel

#if canImport(Glibc)
    import Glibc
    import WalkRuntime
#endif

/// What a walker does from a terminal, against the real `walkscape-server`: register, log in, look
/// at the catalog, redeem a voucher, and every way a voucher can be refused.
@Suite(.serialized)
struct AccountJourneyTests {
    static let garden = TourFixture(
        id: "5e1f0000-0000-4000-8000-00000000ab01", slug: "secret-garden", isProtected: true,
        languages: ["en", "it"], points: 3)
    static let demoID = "3b6f7a0e-2c55-4c1e-8f4a-7d2f5e0c9a10"
    static let password = "correct horse battery"

    /// A server over the demo tour (free) and a protected fixture tour.
    static func server(_ options: ServerProcess.Options = .init(), tours: TemporaryDirectory) async throws
        -> ServerProcess
    {
        var options = options
        options.tours = [TestPaths.demoTour, try garden.write(in: tours.url)]
        return try await ServerProcess.start(options)
    }

    func row(_ slug: String, in table: String) -> String? {
        table.split(separator: "\n").map(String.init).first { $0.hasPrefix(slug + " ") }
    }

    @Test func registerLoginBrowseRedeemAndSeeTheTourUnlocked() async throws {
        let tours = try TemporaryDirectory()
        let server = try await Self.server(tours: tours)
        try server.addVoucher("GARDEN-2026", tour: Self.garden.id)
        let walker = try ServiceWalker(server)

        let short = try walker.register("ada@example.org", password: "short")
        #expect(short.status == 65)
        #expect(short.stderr.hasPrefix("walkscape: registration refused: "))
        #expect(walker.credentials == nil)
        let registered = try walker.register(
            "ada@example.org", password: Self.password, extra: ["--name", "Ada", "-l", "it"])
        #expect(registered.status == 0, "\(registered.stderr)")
        #expect(registered.stdout.hasPrefix("Registered and logged in as ada@example.org."))
        var info = stat()
        #expect(stat(walker.credentialsURL.path, &info) == 0 && info.st_mode & 0o777 == 0o600)

        let again = try walker.register("ada@example.org", password: Self.password)
        #expect(again.status == 73)
        #expect(again.stderr == "walkscape: an account for ada@example.org exists already: walkscape login\n")

        #expect(
            try walker.run(["logout"]).stdout
                == "Logged out ada@example.org: the session is forgotten on this machine.\n")
        #expect(!FileManager.default.fileExists(atPath: walker.credentialsURL.path))
        let anonymous = try walker.run(["whoami"])
        #expect(anonymous.status == 77)
        #expect(anonymous.stderr.hasPrefix("walkscape: not logged in to 127.0.0.1:\(server.port): walkscape login"))

        let wrong = try walker.login("ada@example.org", password: "not the password")
        #expect(wrong.status == 77)
        #expect(wrong.stderr == "walkscape: wrong email or password\n")
        let login = try walker.login("ada@example.org", password: Self.password)
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.hasPrefix("Logged in as ada@example.org."))

        let me = try walker.run(["whoami", "--json"])
        let profile = try #require(try JSONSerialization.jsonObject(with: me.stdoutData) as? [String: Any])
        #expect(profile["email"] as? String == "ada@example.org" && profile["name"] as? String == "Ada")
        #expect(profile["preferredLanguage"] as? String == "it")

        let locked = try walker.run(["tours"])
        #expect(locked.status == 0)
        #expect(locked.stdout.hasPrefix("TOUR "))
        #expect(row("secret-garden", in: locked.stdout)?.hasSuffix("locked") == true)
        #expect(row("secret-garden", in: locked.stdout)?.contains("unlocked") == false)
        #expect(row("florence-duomo-pitti", in: locked.stdout)?.hasSuffix("free") == true)
        #expect(
            row("florence-duomo-pitti", in: locked.stdout)?.contains("Florence: from the Duomo to Palazzo Pitti")
                == true)
        let lockedShow = try walker.run(["show", "secret"])
        #expect(lockedShow.status == 0)
        #expect(lockedShow.stdout.contains("Points: locked; unlock the tour with walkscape redeem CODE."))

        let redeemed = try walker.run(["redeem", "  garden-2026 "])
        #expect(redeemed.status == 0, "\(redeemed.stderr)")
        // The service names the tour in the account's language.
        #expect(redeemed.stdout == "Unlocked: secret-garden (it)\n")

        let unlocked = try walker.run(["tours", "-l", "it"])
        #expect(row("secret-garden", in: unlocked.stdout)?.hasSuffix("unlocked") == true)
        #expect(row("secret-garden", in: unlocked.stdout)?.contains("secret-garden (it)") == true)
        #expect(
            row("florence-duomo-pitti", in: unlocked.stdout)?.contains("Firenze: dal Duomo a Palazzo Pitti") == true)
        let json = try #require(
            try JSONSerialization.jsonObject(with: walker.run(["tours", "--json"]).stdoutData) as? [[String: Any]])
        #expect(json.first { $0["slug"] as? String == "secret-garden" }?["access"] as? String == "unlocked")

        let mine = try walker.run(["my-tours"])
        #expect(mine.status == 0)
        #expect(row("secret-garden", in: mine.stdout)?.contains("secret-garden (it)") == true)

        let shown = try walker.run(["show", "SECRET-GARDEN (I", "-l", "it"])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(
            shown.stdout.hasPrefix("secret-garden (it) (secret-garden)\nBologna · 25 min · 1.4 km · easy · unlocked"))
        #expect(shown.stdout.contains("Points (3):"))
        #expect(shown.stdout.contains("  1  Point 1 (it)  44.49490, 11.34260  30 m"))

        // register, login and redeem sent their events to the service as they ended, with its ids only.
        let events = try server.events().events.map(\.event)
        #expect(events.map(\.name) == ["signup", "login", "voucher_redeemed"])
        let userID = try #require(events[0].userID)
        #expect(events.allSatisfy { $0.userID == userID })
        #expect(events[2].tourID == Self.garden.id)
        #expect(KeptEvents.read(walker.home).isEmpty)

        walker.expectNoTokenPrinted()
        await server.stop()
    }

    @Test func aLoginWithAnAPIURLFlagIsRememberedSoTheNextCommandsNeedNoFlag() async throws {
        let tours = try TemporaryDirectory()
        let server = try await Self.server(tours: tours)
        let walker = try ServiceWalker(server)
        let noService = ["WALKSCAPE_API_URL": ""]
        #expect(try walker.run(["tours"], environment: noService).status == 64, "no service is configured yet")

        let registered = try walker.run(
            ["register", "--email", "cy@example.org", "--password-stdin", "--api-url", server.baseURL],
            stdin: Self.password + "\n", environment: noService)
        #expect(registered.status == 0, "\(registered.stderr)")
        let config = walker.home.file("config/config")
        #expect(registered.stdout.contains("Saved api-url = \(server.baseURL) in "), "\(registered.stdout)")
        let whoami = try walker.run(["whoami"], environment: noService)
        #expect(whoami.status == 0 && whoami.stdout.contains("cy@example.org"), "\(whoami.stderr)")
        #expect(try walker.run(["tours"], environment: noService).stdout.contains("secret-garden"))

        // A config file that names another service is the user's: left alone, and the user told.
        try walker.home.write("config/config", "api-url = http://127.0.0.1:9  # the other one\n")
        let login = try walker.run(
            ["login", "--email", "cy@example.org", "--password-stdin", "--api-url", server.baseURL],
            stdin: Self.password + "\n", environment: noService)
        #expect(login.status == 0, "\(login.stderr)")
        #expect(
            login.stdout.contains(
                "names another service (http://127.0.0.1:9): later commands go there unless given --api-url \(server.baseURL)"
            ),
            "\(login.stdout)")
        #expect(try String(contentsOf: config, encoding: .utf8) == "api-url = http://127.0.0.1:9  # the other one\n")
    }

    @Test func theCatalogOfflineSaysWhereTheDownloadedToursAre() throws {
        let home = try TemporaryDirectory()
        let port = try freeTCPPort()
        let r = try runWalkscape(["tours"], home: home, environment: ["WALKSCAPE_API_URL": "http://127.0.0.1:\(port)"])
        #expect(r.status == 69)
        #expect(
            r.stderr.hasSuffix(
                "walkscape: cannot reach the service at 127.0.0.1:\(port) (connection refused) (walkscape tours --installed lists the tours on this machine)\n"
            ),
            "\(r.stderr)")
    }

    @Test func everyVoucherRefusalHasItsOwnMessageAndCode() async throws {
        let tours = try TemporaryDirectory()
        let server = try await Self.server(tours: tours)
        try server.addVoucher("ONCE", tour: Self.garden.id, maxUses: 1)
        try server.addVoucher("OLD", tour: Self.garden.id, validUntil: "2020-01-01")
        try server.addVoucher("LOOSE", tour: nil)
        try server.addVoucher("DEMO", tour: Self.demoID)
        try server.addVoucher("MANY", tour: Self.garden.id, maxUses: 10)
        let ada = try ServiceWalker(server)
        let bob = try ServiceWalker(server)

        let anonymous = try ada.run(["redeem", "ONCE"])
        #expect(anonymous.status == 77)
        #expect(anonymous.stderr.hasPrefix("walkscape: not logged in to 127.0.0.1:\(server.port)"))

        #expect(try ada.register("ada@example.org", password: Self.password).status == 0)
        #expect(try bob.register("bob@example.org", password: Self.password).status == 0)

        let cases: [(ServiceWalker, String, Int32, String)] = [
            (ada, "NOPE", 66, "no voucher NOPE: check the code"),
            (ada, "OLD", 65, "voucher OLD cannot be used: Voucher has expired"),
            (ada, "LOOSE", 65, "voucher LOOSE cannot be used: Voucher is not linked to a tour"),
            (ada, "ONCE", 0, ""),
            (ada, "MANY", 73, "the tour of voucher MANY is already unlocked for you"),
            (bob, "ONCE", 65, "voucher ONCE cannot be used: Voucher has reached its maximum number of uses"),
        ]
        for (walker, code, status, message) in cases {
            let r = try walker.run(["redeem", code])
            #expect(r.status == status, "\(code): \(r.stderr)")
            if status != 0 { #expect(r.stderr == "walkscape: \(message)\n", "\(code)") }
        }
        // A voucher names its own tour, whatever the walker had in mind.
        let demo = try bob.run(["redeem", "demo", "--json"])
        let answer = try #require(try JSONSerialization.jsonObject(with: demo.stdoutData) as? [String: Any])
        #expect(answer["tourId"] as? String == Self.demoID)
        #expect(answer["tourTitle"] as? String == "Florence: from the Duomo to Palazzo Pitti")
        #expect(try server.events().events.last?.event.tourID == Self.demoID)
        ada.expectNoTokenPrinted()
        bob.expectNoTokenPrinted()
        await server.stop()
    }

    @Test func aTourNameThatFitsSeveralListsThemAndAnUnknownOneIsNotFound() async throws {
        let tours = try TemporaryDirectory()
        let second = TourFixture(slug: "secret-garden-night", languages: ["en"])
        try second.write(in: tours.url)
        var options = ServerProcess.Options()
        options.tours = [
            TestPaths.demoTour, try Self.garden.write(in: tours.url),
            tours.url.appendingPathComponent("secret-garden-night"),
        ]
        let server = try await ServerProcess.start(options)
        let walker = try ServiceWalker(server)
        let ambiguous = try walker.run(["show", "secret"])
        #expect(ambiguous.status == 64)
        #expect(
            ambiguous.stderr
                == "walkscape: 'secret' could be any of 2 tours: secret-garden (secret-garden (en)), secret-garden-night (secret-garden-night (en)); name one by its slug or id\n"
        )
        let unknown = try walker.run(["show", "venezia"])
        #expect(unknown.status == 66)
        #expect(try walker.run(["show", "secret-garden-night"]).status == 0)
        #expect(try walker.run(["show", Self.demoID, "-l", "fr"]).status == 66)
        await server.stop()
    }

    @Test func doctorSeesTheServiceAndTheSession() async throws {
        let tours = try TemporaryDirectory()
        let server = try await Self.server(tours: tours)
        let walker = try ServiceWalker(server)
        #expect(try walker.register("ada@example.org", password: Self.password).status == 0)
        let r = try walker.run(["doctor", "--audio-device", "null"])
        let api = try #require(r.stdout.split(separator: "\n").first { $0.contains(" api ") })
        #expect(api.hasPrefix("OK   api"))
        #expect(api.contains("\(server.baseURL) (from WALKSCAPE_API_URL) answers /health in "))
        let login = try #require(r.stdout.split(separator: "\n").first { $0.contains(" login ") })
        #expect(login.hasPrefix("OK   login   logged in as ada@example.org, session valid until "))
        walker.expectNoTokenPrinted()
        await server.stop()
    }
}

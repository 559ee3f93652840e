import Foundation
import TestSupport
import Testing
import TourAPI
import TourModel

/// Tokens that expire, against the real server's short lifetimes: renewed before use without a
/// prompt, once however many requests want it, and "log in again" when renewal is impossible.
@Suite(.serialized)
struct SessionRenewalTests {
    static let password = AccountJourneyTests.password
    static let garden = AccountJourneyTests.garden

    /// A walker logged in with the protected tour unlocked, so an ignored token shows as "locked".
    func unlockedWalker(_ options: ServerProcess.Options, tours: TemporaryDirectory) async throws -> ServiceWalker {
        let server = try await AccountJourneyTests.server(options, tours: tours)
        try server.addVoucher("GARDEN", tour: Self.garden.id)
        let walker = try ServiceWalker(server)
        #expect(try walker.register("ada@example.org", password: Self.password).status == 0)
        #expect(try walker.run(["redeem", "GARDEN"]).status == 0)
        return walker
    }

    @Test func anExpiredAccessTokenIsRenewedBeforeUseWithoutAPrompt() async throws {
        let tours = try TemporaryDirectory()
        let walker = try await unlockedWalker(.init(tokenTTL: 2), tours: tours)
        let before = try #require(walker.credentials)
        // A slow machine may have renewed already while setting up: count from here.
        let refreshesBefore = try #require(try walker.server.stats()["refreshes"])
        try await Task.sleep(for: .milliseconds(2500))
        // An expired token is silently ignored on public routes: the tour would show as locked.
        let r = try walker.run(["tours"], stdin: "")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.split(separator: "\n").first { $0.hasPrefix("secret-garden ") }?.hasSuffix("unlocked") == true)
        #expect(try walker.run(["show", "secret-garden"]).stdout.contains("Points (3):"))
        let after = try #require(walker.credentials)
        #expect(after.tokens.accessToken != before.tokens.accessToken)
        #expect(after.tokens.refreshToken != before.tokens.refreshToken)  // rotated, and the new one kept
        var info = stat()
        #expect(stat(walker.credentialsURL.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try walker.server.stats()["refreshes"] == refreshesBefore + 1)
        walker.expectNoTokenPrinted()
        await walker.server.stop()
    }

    @Test func anExpiredRefreshTokenAsksToLogInAgain() async throws {
        let tours = try TemporaryDirectory()
        let walker = try await unlockedWalker(.init(tokenTTL: 1, refreshTTL: 2), tours: tours)
        let refreshesBefore = try walker.server.stats()["refreshes"]
        try await Task.sleep(for: .milliseconds(2500))
        for command in [["whoami"], ["tours"], ["my-tours"], ["redeem", "GARDEN"]] {
            let r = try walker.run(command)
            #expect(r.status == 77, "\(command)")
            #expect(r.stderr == "walkscape: log in again: walkscape login\n", "\(command)")
        }
        // Known expired from its own exp: the service was not even asked.
        #expect(try walker.server.stats()["refreshes"] == refreshesBefore)
        #expect(try walker.login("ada@example.org", password: Self.password).status == 0)
        #expect(try walker.run(["whoami"]).status == 0)
        walker.expectNoTokenPrinted()
        await walker.server.stop()
    }

    @Test func aRefreshTokenSpentElsewhereAsksToLogInAgain() async throws {
        let tours = try TemporaryDirectory()
        let walker = try await unlockedWalker(.init(tokenTTL: 2), tours: tours)
        // The same session copied to a second machine: whoever renews first rotates the pair away.
        let other = try ServiceWalker(walker.server)
        try FileManager.default.createDirectory(
            at: other.credentialsURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: walker.credentialsURL, to: other.credentialsURL)
        try await Task.sleep(for: .milliseconds(2500))
        #expect(try walker.run(["whoami"]).status == 0)
        let refused = try other.run(["whoami"])
        #expect(refused.status == 77)
        #expect(refused.stderr == "walkscape: log in again: walkscape login\n")
        #expect(try walker.server.stats()["refreshesRefused"] == 1)
        walker.expectNoTokenPrinted()
        other.expectNoTokenPrinted()
        await walker.server.stop()
    }

    @Test func aTokenTheServiceRejectsGetsOneRenewalThenTheLoginMessage() async throws {
        let tours = try TemporaryDirectory()
        let first = try await ServerProcess.start()
        let walker = try ServiceWalker(first)
        #expect(try walker.register("ada@example.org", password: Self.password).status == 0)
        // The same address now answers with another signing key (a reinstalled service): the
        // token is not expired, so it is sent, answered 401, and its renewal refused.
        let second = try await AccountJourneyTests.server(.init(), tours: tours)
        var credentials = try #require(walker.credentials)
        credentials.service = ServiceURL.key(URL(string: second.baseURL)!)
        try WalkscapeJSON.encoder().encode(credentials).write(to: walker.credentialsURL)
        let r = try walker.run(["whoami"], environment: ["WALKSCAPE_API_URL": second.baseURL])
        #expect(r.status == 77)
        #expect(r.stderr == "walkscape: log in again: walkscape login\n")
        #expect(try second.stats()["refreshes"] == 0)
        walker.expectNoTokenPrinted()
        await first.stop()
        await second.stop()
    }

    @Test func parallelCommandsWithAnExpiringTokenRenewItOnce() async throws {
        let tours = try TemporaryDirectory()
        let walker = try await unlockedWalker(.init(tokenTTL: 2), tours: tours)
        let refreshesBefore = try #require(try walker.server.stats()["refreshes"])
        try await Task.sleep(for: .milliseconds(2500))
        let commands = [
            ["whoami"], ["my-tours"], ["tours"], ["show", "secret-garden"], ["whoami", "--json"],
            ["my-tours", "--json"],
        ]
        let results = try await walker.runConcurrently(commands).map { try $0.get() }
        #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
        #expect(try walker.server.stats()["refreshes"] == refreshesBefore + 1)
        #expect(try walker.server.stats()["refreshesRefused"] == 0)
        walker.expectNoTokenPrinted()
        await walker.server.stop()
    }
}

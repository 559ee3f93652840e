import Foundation
import Synchronization
import TestSupport
import Testing
import TourAPI
import TourModel
import WalkscapeKit

/// Tokens that expire, against the real server: renewed before use without a prompt, once however
/// many requests want it, and "log in again" when renewal is impossible. The application layer runs
/// in-process with its clock moved ahead; only the parallel renewal, which is about processes
/// sharing one session file, runs the program and waits for a short-lived token to age.
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

    /// The application layer in-process, its clock `ahead` of the wall clock: a token the server
    /// issued a moment ago is, to this walker, as old as it would be after waiting.
    func connection(_ walker: ServiceWalker, ahead seconds: TimeInterval) throws -> (Settings, any RetryTimer) {
        let settings = try Settings.resolve(
            flags: SettingsFlags(home: walker.home.path, apiURL: walker.server.baseURL), environment: [:])
        return (settings, ShiftedTimer(offset: seconds))
    }

    @Test func anExpiredAccessTokenIsRenewedBeforeUseWithoutAPrompt() async throws {
        let tours = try TemporaryDirectory()
        let walker = try await unlockedWalker(.init(tokenTTL: 60), tours: tours)
        let before = try #require(walker.credentials)
        let refreshesBefore = try #require(try walker.server.stats()["refreshes"])
        // 61 s later by the walker's clock: the access token has expired, the refresh token not.
        let (settings, timer) = try connection(walker, ahead: 61)
        let list = try await ServiceConnection.run(settings, timer: timer) { try await $0.tours() }
        #expect(list.first { $0.slug == "secret-garden" }?.hasAccess == true)
        // The renewed pair is kept and used (by the wall clock it is fresh: no second renewal).
        let points = try await ServiceConnection.run(settings) { client in
            try await client.points(ofTour: Self.garden.id, language: "en")
        }
        #expect(points.count == 3)
        let after = try #require(walker.credentials)
        // Rotated, and the new pair kept (the access token may be the same bytes: a JWT issued in
        // the same second with the same claims is).
        #expect(after.tokens.refreshToken != before.tokens.refreshToken)
        var info = stat()
        #expect(stat(walker.credentialsURL.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try walker.server.stats()["refreshes"] == refreshesBefore + 1)
        await walker.server.stop()
    }

    @Test func anExpiredRefreshTokenAsksToLogInAgain() async throws {
        let tours = try TemporaryDirectory()
        let walker = try await unlockedWalker(.init(tokenTTL: 30, refreshTTL: 60), tours: tours)
        let refreshesBefore = try walker.server.stats()["refreshes"]
        let (settings, timer) = try connection(walker, ahead: 61)
        for request in ["me", "my tours", "redeem"] {
            let error = await #expect(throws: AppError.self, "\(request)") {
                try await ServiceConnection.run(settings, timer: timer) { client in
                    switch request {
                    case "me": _ = try await client.me()
                    case "my tours": _ = try await client.myTours()
                    default: _ = try await client.redeem("GARDEN")
                    }
                }
            }
            #expect(error?.kind == .noPermission, "\(request)")
            #expect(error?.message == "log in again: walkscape login", "\(request)")
        }
        // The catalog goes on without the login, which is said once: what anyone may see, the
        // tour the login unlocked locked again. It was "log in again" for every catalog command,
        // so a week unused shut a walker out of the free tours too.
        let said = Mutex<[String]>([])
        let list = try await ServiceConnection.run(
            settings, timer: timer, notices: { text in said.withLock { $0.append(text) } }
        ) {
            client in
            _ = try await client.tours()
            return try await client.tours()
        }
        #expect(list.first { $0.slug == "secret-garden" }?.hasAccess != true)
        #expect(list.contains { !$0.isProtected })
        #expect(said.withLock { $0 }.count == 1)
        #expect(said.withLock { $0 }.first?.contains("your login has expired") == true)
        // Known expired from its own exp: the service was not even asked.
        #expect(try walker.server.stats()["refreshes"] == refreshesBefore)
        #expect(try walker.login("ada@example.org", password: Self.password).status == 0)
        #expect(try walker.run(["whoami"]).status == 0)
        walker.expectNoTokenPrinted()
        await walker.server.stop()
    }

    @Test func aRefreshTokenSpentElsewhereAsksToLogInAgain() async throws {
        let tours = try TemporaryDirectory()
        let walker = try await unlockedWalker(.init(tokenTTL: 60), tours: tours)
        // The same session copied to a second machine: whoever renews first rotates the pair away.
        let other = try ServiceWalker(walker.server)
        try FileManager.default.createDirectory(
            at: other.credentialsURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: walker.credentialsURL, to: other.credentialsURL)
        let (settings, timer) = try connection(walker, ahead: 61)
        _ = try await ServiceConnection.run(settings, timer: timer) { try await $0.me() }
        let (otherSettings, otherTimer) = try connection(other, ahead: 61)
        let error = await #expect(throws: AppError.self) {
            try await ServiceConnection.run(otherSettings, timer: otherTimer) { try await $0.me() }
        }
        #expect(error?.kind == .noPermission)
        #expect(error?.message == "log in again: walkscape login")
        #expect(try walker.server.stats()["refreshesRefused"] == 1)
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
        // 8 s: the six commands end well inside the renewed token's life on a busy machine (at
        // 2 s, a second renewal could come due while they were still starting).
        let walker = try await unlockedWalker(.init(tokenTTL: 8), tours: tours)
        let refreshesBefore = try #require(try walker.server.stats()["refreshes"])
        // An 8 s token is renewed in its last quarter (2 s before its exp): 1.6 s into it, every
        // command must renew it.
        let expiry = try #require(walker.credentials?.tokens.accessExpiresAt)
        try await Task.sleep(for: .seconds(max(0, expiry.timeIntervalSinceNow - 0.4)))
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

/// The wall clock moved by `offset` seconds; waits are real.
struct ShiftedTimer: RetryTimer {
    var offset: TimeInterval
    func now() -> Date { Date().addingTimeInterval(offset) }
    func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}

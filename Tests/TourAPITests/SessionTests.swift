import Foundation
import ServiceTestSupport
import Testing
import TourAPI
import TourModel

/// The session's renewal rules with a scripted service: refreshed before expiry, once however many
/// callers, rotated pairs kept, and the login message when renewal is impossible.
struct SessionTests {
    static let service = URL(string: "https://api.example.org")!
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func credentials(accessExpiresIn: TimeInterval, refreshExpiresIn: TimeInterval = 7 * 86_400) -> Credentials {
        Credentials(
            service: ServiceURL.key(Self.service), email: "ada@example.org", userID: "u1",
            tokens: AuthTokens(
                accessToken: TestToken.make(
                    issuedAt: now.addingTimeInterval(accessExpiresIn - 900),
                    expiresAt: now.addingTimeInterval(accessExpiresIn)),
                refreshToken: TestToken.make(
                    issuedAt: now.addingTimeInterval(-60),
                    expiresAt: now.addingTimeInterval(refreshExpiresIn))))
    }

    func session(_ transport: ScriptedTransport, _ store: MemoryCredentialStore) -> Session {
        let timer = RecordedTimer(now: now)
        let channel = ServiceChannel(
            service: Self.service, executor: RequestExecutor(transport: transport, timer: timer), userAgent: "test")
        return Session(channel: channel, store: store, now: { timer.now() })
    }

    /// Answers /auth/refresh with a fresh pair after a pause, so concurrent callers overlap.
    func refreshingService(_ now: Date) -> ScriptedTransport {
        ScriptedTransport { request in
            try? await Task.sleep(for: .milliseconds(50))
            let access = TestToken.make(issuedAt: now, expiresAt: now.addingTimeInterval(900))
            let refresh = TestToken.make(issuedAt: now, expiresAt: now.addingTimeInterval(7 * 86_400))
            return .answer(201, body: #"{"accessToken":"\#(access)","refreshToken":"\#(refresh)"}"#)
        }
    }

    func pair(subject: String, refreshExpiresIn: TimeInterval = 7 * 86_400) -> AuthTokens {
        AuthTokens(
            accessToken: TestToken.make(subject: subject, issuedAt: now, expiresAt: now.addingTimeInterval(900)),
            refreshToken: TestToken.make(
                subject: subject, issuedAt: now, expiresAt: now.addingTimeInterval(refreshExpiresIn)))
    }

    /// A login answer for another account than the one asked for, tokens of another account than
    /// its user, or a session already over is refused, and the session saved before stays.
    @Test func aLoginAnswerThatIsNotTheAccountAskedForIsRefusedAndTheOldSessionKept() async throws {
        let before = credentials(accessExpiresIn: 600)
        let user = UserProfile(id: "u1", email: "ada@example.org")
        for (auth, words) in [
            (
                AuthSession(user: UserProfile(id: "u1", email: "mallory@evil.org"), tokens: pair(subject: "u1")),
                "mallory@evil.org"
            ),
            (AuthSession(user: user, tokens: pair(subject: "u2")), "another account"),
            (AuthSession(user: user, tokens: pair(subject: "u1", refreshExpiresIn: -60)), "already over"),
        ] {
            let store = MemoryCredentialStore(before)
            do {
                try await session(ScriptedTransport([]), store).begin(auth, email: " Ada@Example.org ")
                Issue.record("accepted: \(auth.user?.email ?? "")")
            } catch {
                #expect(error.kind == .protocolError)
                #expect(error.message.contains(words), "\(error.message)")
            }
            #expect(store.current == before)
        }
        // The same account, written another way (case, spaces, full-width letters), is the
        // account asked for.
        for typed in [" Ada@Example.org ", "\u{FF41}\u{FF44}\u{FF41}@example.org"] {
            let store = MemoryCredentialStore()
            try await session(ScriptedTransport([]), store).begin(
                AuthSession(user: user, tokens: pair(subject: "u1")), email: typed)
            #expect(store.current?.userID == "u1")
        }
    }

    /// A renewal that hands back another account's tokens is refused, not kept: the session would
    /// have become that account's under the first one's name.
    @Test func aRenewalWithAnotherAccountsTokensIsRefused() async throws {
        let old = credentials(accessExpiresIn: 5)
        let store = MemoryCredentialStore(old)
        let other = pair(subject: "u2")
        let transport = ScriptedTransport([
            .answer(201, body: #"{"accessToken":"\#(other.accessToken)","refreshToken":"\#(other.refreshToken!)"}"#)
        ])
        do {
            _ = try await session(transport, store).accessToken()
            Issue.record("another account's token was used")
        } catch {
            #expect(error.kind == .protocolError)
            #expect(error.message.contains("another account"), "\(error.message)")
        }
        #expect(store.current == old)
    }

    /// A renewal that finds the session ended (logout) or replaced (a login) while it waited for the
    /// store keeps what is there: it neither brings a forgotten session back nor overwrites a new one.
    @Test func aRenewalNeverUndoesALogoutOrALoginMadeMeanwhile() async throws {
        let old = credentials(accessExpiresIn: 5)
        // Logged out meanwhile.
        let gone = MemoryCredentialStore(old)
        let first = session(refreshingService(now), gone)
        _ = try await first.credentials()
        try gone.remove()
        do {
            _ = try await first.accessToken()
            Issue.record("a forgotten session was renewed")
        } catch {
            #expect(error.kind == .notLoggedIn || error.kind == .sessionExpired, "\(error)")
        }
        #expect(gone.current == nil)
        // Replaced by another account's login meanwhile.
        let replaced = MemoryCredentialStore(old)
        let second = session(refreshingService(now), replaced)
        _ = try await second.credentials()
        var bob = credentials(accessExpiresIn: 600)
        bob.email = "bob@example.org"
        bob.userID = "u2"
        try replaced.save(bob)
        let token = try await second.accessToken()
        #expect(replaced.current == bob)
        #expect(token == bob.tokens.accessToken)
    }

    @Test func aFreshTokenIsUsedAsItIs() async throws {
        let store = MemoryCredentialStore(credentials(accessExpiresIn: 600))
        let transport = ScriptedTransport([])
        let token = try await session(transport, store).accessToken()
        #expect(token == store.current?.tokens.accessToken)
        #expect(transport.requests.isEmpty)
    }

    @Test func aTokenAboutToExpireIsRenewedFirstAndTheRotatedPairKept() async throws {
        let old = credentials(accessExpiresIn: 30)
        let store = MemoryCredentialStore(old)
        let transport = refreshingService(now)
        let s = session(transport, store)
        let token = try await s.accessToken()
        #expect(token != old.tokens.accessToken)
        #expect(store.current?.tokens.accessToken == token)
        #expect(store.current?.tokens.refreshToken != old.tokens.refreshToken)
        #expect(store.current?.email == "ada@example.org")
        let sent = try #require(transport.requests.first)
        #expect(sent.summary == "POST /auth/refresh")
        #expect(sent.headers["Authorization"] == nil)
        let body = try JSONSerialization.jsonObject(with: try #require(sent.body)) as? [String: String]
        #expect(body == ["refreshToken": old.tokens.refreshToken!])
        #expect(await s.refreshCount == 1)
    }

    @Test func manyCallersShareOneRefresh() async throws {
        let store = MemoryCredentialStore(credentials(accessExpiresIn: 5))
        let transport = refreshingService(now)
        let s = session(transport, store)
        let tokens = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<16 { group.addTask { try await s.accessToken() } }
            return try await group.reduce(into: Set<String?>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
        #expect(transport.requests.count == 1)
        #expect(await s.refreshCount == 1)
        #expect(store.saves == 1)
    }

    @Test func aRejectedTokenIsRenewedOnceForAllWhoSawIt() async throws {
        let store = MemoryCredentialStore(credentials(accessExpiresIn: 600))
        let rejected = try #require(store.current?.tokens.accessToken)
        let transport = refreshingService(now)
        let s = session(transport, store)
        async let a = s.accessToken(afterRejecting: rejected)
        async let b = s.accessToken(afterRejecting: rejected)
        let (x, y) = try await (a, b)
        #expect(x == y && x != rejected)
        #expect(transport.requests.count == 1)
        // A later 401 for the old token finds the renewed one without asking the service again.
        #expect(try await s.accessToken(afterRejecting: rejected) == x)
        #expect(transport.requests.count == 1)
    }

    @Test func anExpiredRefreshTokenMeansLoggingInAgainWithoutAsking() async throws {
        let store = MemoryCredentialStore(credentials(accessExpiresIn: -10, refreshExpiresIn: -1))
        let transport = ScriptedTransport([])
        await #expect(throws: APIError.sessionExpired) { try await session(transport, store).accessToken() }
        #expect(transport.requests.isEmpty)
        #expect(APIError.sessionExpired.message == "log in again")
        #expect(APIError.sessionExpired.remedy == .logIn)
    }

    @Test func aRefusedRefreshMeansLoggingInAgain() async throws {
        for status in [401, 403] {
            let store = MemoryCredentialStore(credentials(accessExpiresIn: 1))
            let transport = ScriptedTransport([.answer(status, body: #"{"statusCode":401,"message":"Unauthorized"}"#)])
            await #expect(throws: APIError.sessionExpired) { try await session(transport, store).accessToken() }
        }
    }

    @Test func anotherServicesCredentialsAreNeverUsed() async throws {
        var foreign = credentials(accessExpiresIn: 600)
        foreign.service = "https://other.example.net"
        let s = session(ScriptedTransport([]), MemoryCredentialStore(foreign))
        #expect(try await s.accessToken() == nil)
        #expect(try await s.credentials() == nil)
        #expect(try await s.saved() == foreign)
    }

    @Test func shortLivedTokensAreNotRenewedOnEveryRequest() {
        // A 2-second token (tests, `--token-ttl 2`): due in its last half second, not always.
        let issued = now
        let c = Credentials(
            service: "s", email: nil, userID: nil,
            tokens: AuthTokens(
                accessToken: TestToken.make(issuedAt: issued, expiresAt: issued.addingTimeInterval(2)),
                refreshToken: nil))
        #expect(!c.accessNeedsRefresh(at: issued.addingTimeInterval(1)))
        #expect(c.accessNeedsRefresh(at: issued.addingTimeInterval(1.6)))
    }
}

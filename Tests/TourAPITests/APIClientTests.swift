import Foundation
import ServiceTestSupport
import Testing
import TourAPI
import TourModel

/// The client's contract with the service, with a scripted transport: what each request carries,
/// the one renewal and retry after a 401, and how refusals are named.
struct APIClientTests {
    static let service = URL(string: "https://api.example.org/base/")!
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func client(_ transport: ScriptedTransport, _ store: MemoryCredentialStore) -> APIClient {
        let channel = ServiceChannel(
            service: Self.service,
            executor: RequestExecutor(
                transport: transport, timer: RecordedTimer(now: now), jitter: FixedJitter(value: 0)),
            userAgent: "walkscape/test")
        return APIClient(channel: channel, credentials: store)
    }

    /// A session whose access token was issued `accessIssued` seconds from now and expires
    /// `accessExpires` seconds from now (a fresh one by default).
    func loggedIn(accessIssued: TimeInterval = 0, accessExpires: TimeInterval = 900) -> MemoryCredentialStore {
        MemoryCredentialStore(
            Credentials(
                service: ServiceURL.key(Self.service), email: "ada@example.org", userID: "u1",
                tokens: AuthTokens(
                    accessToken: TestToken.make(
                        issuedAt: now.addingTimeInterval(accessIssued), expiresAt: now.addingTimeInterval(accessExpires)
                    ),
                    refreshToken: TestToken.make(issuedAt: now, expiresAt: now.addingTimeInterval(86_400)))))
    }

    func renewal() -> ScriptedTransport.Step {
        let access = TestToken.make(issuedAt: now, expiresAt: now.addingTimeInterval(900))
        return .answer(
            201,
            body:
                #"{"accessToken":"\#(access)","refreshToken":"\#(TestToken.make(issuedAt: now, expiresAt: now.addingTimeInterval(86_400)))"}"#
        )
    }

    static let me = #"{"id":"u1","email":"ada@example.org","preferredLanguage":"it","mailingListOptIn":false}"#

    @Test func aRejectedTokenIsRenewedOnceAndTheRequestRetried() async throws {
        let store = loggedIn()
        let old = try #require(store.current?.tokens.accessToken)
        let transport = ScriptedTransport([
            .answer(401, body: #"{"statusCode":401,"message":"Unauthorized"}"#), renewal(),
            .answer(200, body: Self.me),
        ])
        let profile = try await client(transport, store).me()
        #expect(profile.email == "ada@example.org")
        #expect(
            transport.requests.map(\.summary) == ["GET /base/auth/me", "POST /base/auth/refresh", "GET /base/auth/me"])
        #expect(transport.requests[0].headers["Authorization"] == "Bearer \(old)")
        #expect(transport.requests[2].headers["Authorization"] == "Bearer \(store.current!.tokens.accessToken)")
        #expect(store.current?.tokens.accessToken != old)
    }

    @Test func anAnswerThatIsNotUTF8OrHoldsControlCharactersIsRefusedInOneLine() async throws {
        var latin1 = Data(#"[{"id":"t1","slug":"caf"#.utf8)
        latin1.append(0xE9)  // é in Latin-1: not UTF-8
        latin1.append(contentsOf: Data(#"","title":{"en":"x"},"languages":["en"]}]"#.utf8))
        do {
            _ = try await client(ScriptedTransport([.answerBytes(200, latin1)]), loggedIn()).tours()
            Issue.record("a Latin-1 answer was decoded")
        } catch {
            #expect(error.message == "the service's answer to GET /base/tours is not UTF-8 text")
        }
        // Control characters where JSON allows none: whatever the parser says of them stays one line
        // and moves no cursor.
        let body = "[{\"id\":\"t1\"\n\u{1B}[2J\u{07}}]"
        do {
            _ = try await client(ScriptedTransport([.answer(200, body: body)]), loggedIn()).tours()
            Issue.record("broken JSON was decoded")
        } catch {
            #expect(!error.message.unicodeScalars.contains { $0.value < 0x20 }, "\(error.message)")
            #expect(error.message.hasPrefix("the service's answer to GET /base/tours is not understood ("))
        }
    }

    @Test func aSecond401MeansLoggingInAgain() async throws {
        let transport = ScriptedTransport([.answer(401), renewal(), .answer(401), .answer(200, body: Self.me)])
        await #expect(throws: APIError.sessionExpired) { try await client(transport, loggedIn()).me() }
        #expect(transport.requests.count == 3)
    }

    @Test func requiredLoginIsCheckedBeforeAnythingIsSent() async throws {
        let transport = ScriptedTransport([])
        await #expect(throws: APIError.notLoggedIn(Self.service)) {
            try await client(transport, MemoryCredentialStore()).redeem("X")
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func requestsCarryOnlyTheLiveKeysAndNeverATokenInTheURL() async throws {
        let transport = ScriptedTransport([
            .answer(201, body: #"{"success":true,"message":"ok","tourId":"t1","tourTitle":"Garden"}"#),
            .answer(200, body: "[]"),
        ])
        let store = loggedIn()
        let api = client(transport, store)
        _ = try await api.redeem("  spring-26 \n")
        _ = try await api.points(ofTour: "a b/c", language: "it")
        let redeem = transport.requests[0]
        #expect(redeem.summary == "POST /base/vouchers/validate")
        #expect(try JSONSerialization.jsonObject(with: redeem.body!) as? [String: String] == ["code": "spring-26"])
        #expect(
            redeem.headers["Content-Type"] == "application/json" && redeem.headers["User-Agent"] == "walkscape/test")
        let points = transport.requests[1]
        #expect(points.url.absoluteString == "https://api.example.org/base/tours/a%20b%2Fc/points?language=it")
        for request in transport.requests {
            #expect(!request.url.absoluteString.contains(store.current!.tokens.accessToken))
        }

        let registering = ScriptedTransport([
            .answer(
                409, body: #"{"statusCode":409,"message":"User with this email already exists","error":"Conflict"}"#)
        ])
        await #expect(
            throws: APIError(
                .alreadyExists, "an account for ada@example.org exists already", status: 409, remedy: .logIn)
        ) {
            try await client(registering, MemoryCredentialStore()).register(
                Registration(email: "ada@example.org", password: "12345678"))
        }
        let body = try JSONSerialization.jsonObject(with: registering.requests[0].body!) as? [String: String]
        #expect(body == ["email": "ada@example.org", "password": "12345678"])
    }

    /// A registration or a redemption cut off after it was sent may have gone through: it is not
    /// sent again, and the error says so with the way to find out (it said "try again later",
    /// and a second registration then met "exists already").
    @Test func aRegistrationOrRedemptionWithoutAnAnswerSaysItMayHaveGoneThrough() async throws {
        for kind in [TransportError.Kind.timedOut, .connectionLost] {
            let registering = ScriptedTransport([.fail(kind)])
            do {
                _ = try await client(registering, MemoryCredentialStore()).register(
                    Registration(email: "ada@example.org", password: "12345678"))
                Issue.record("registered without an answer")
            } catch {
                #expect(error.kind == .temporary)
                #expect(
                    error.message.hasSuffix(
                        "; the account for ada@example.org may have been made all the same: walkscape login tells"),
                    "\(error.message)")
                #expect(!error.message.contains("try again"), "\(error.message)")
            }
            #expect(registering.requests.count == 1)

            let redeeming = ScriptedTransport([.fail(kind)])
            do {
                _ = try await client(redeeming, loggedIn()).redeem("WALK-2026")
                Issue.record("redeemed without an answer")
            } catch {
                #expect(
                    error.message.hasSuffix(
                        "; voucher WALK-2026 may have been redeemed all the same: walkscape my-tours tells"),
                    "\(error.message)")
            }
            #expect(redeeming.requests.count == 1)
        }
        // A gateway whose service went quiet may have passed the registration on.
        let gateway = ScriptedTransport([.answer(504)])
        do {
            _ = try await client(gateway, MemoryCredentialStore()).register(
                Registration(email: "ada@example.org", password: "12345678"))
            Issue.record("registered on a 504")
        } catch {
            #expect(error.message.contains("may have been made all the same"), "\(error.message)")
        }
        #expect(gateway.requests.count == 1)
    }

    /// A token renewal cut off before a redemption is not the redemption: the voucher was never
    /// sent, and the error does not say it may have been redeemed.
    @Test func aRenewalCutOffBeforeARedemptionIsNotSaidToHaveRedeemed() async throws {
        let stale = loggedIn(accessIssued: -1000, accessExpires: -100)
        let transport = ScriptedTransport([.fail(.timedOut)])
        do {
            _ = try await client(transport, stale).redeem("WALK-2026")
            Issue.record("redeemed")
        } catch {
            #expect(!error.message.contains("may have been redeemed"), "\(error.message)")
        }
        #expect(transport.requests.allSatisfy { !$0.url.path.hasSuffix("/vouchers/validate") })
    }

    /// "Cannot reach the service" is one condition whether the connection was refused or never
    /// made in time: exit 69 both ways (a connect timeout was 75 in every command but `sync`).
    @Test func aServiceThatCannotBeReachedIsUnavailableWhetherRefusedOrSilent() {
        for kind in [TransportError.Kind.cannotConnect, .connectTimeout] {
            let error = APIError(TransportError(kind, "no connection within 5 s"), service: Self.service)
            #expect(error.kind == .unavailable, "\(kind)")
            #expect(error.message.hasPrefix("cannot reach the service at api.example.org"), "\(error.message)")
        }
        // An answer that did not come in time is another matter: the service was reached.
        let late = APIError(TransportError(.timedOut, "no answer within 20 s"), service: Self.service)
        #expect(late.kind == .temporary)
    }

    @Test func theStatusTableNamesEachFailure() {
        func kind(_ status: Int) -> APIError.Kind {
            APIError.status(status, body: nil, request: "GET /x", retryAfter: nil).kind
        }
        #expect(
            kind(400) == .rejected && kind(401) == .sessionExpired && kind(403) == .forbidden && kind(404) == .notFound)
        #expect(
            kind(409) == .alreadyExists && kind(413) == .tooLarge && kind(429) == .temporary && kind(503) == .temporary)
        #expect(kind(302) == .protocolError && kind(418) == .protocolError)
        #expect(
            APIError.status(429, body: nil, request: "GET /x", retryAfter: .seconds(40)).message
                == "the service is busy (too many requests); try again in 40 s")
    }
}

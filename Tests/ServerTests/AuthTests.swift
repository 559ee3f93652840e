import Foundation
import NIOCore
import TestSupport
import Testing
import TourModel

@testable import WalkscapeServer

/// `/auth/*` as the live service answers: 201s, 409, 401 `Invalid credentials`, refresh rotation,
/// token lifetimes, and the 403-on-expired-token quirk of public routes.
struct AuthTests {
    @Test func registerAnswers201WithTheUserAndAnHS256TokenPair() async throws {
        try await InProcessServer.test(.init(tokenTTL: 120, refreshTTL: 3600)) { http in
            let reply = try await http.post(
                "/auth/register",
                [
                    "email": "Ada@Example.org", "password": "correct horse",
                    "name": "Ada", "preferredLanguage": "it", "mailingListOptIn": true,
                ])
            #expect(reply.status == 201)
            #expect(reply.header("content-type") == "application/json; charset=utf-8")
            let session: AuthSession = try reply.decode()
            let user = try #require(session.user)
            #expect(user.email == "ada@example.org" && user.name == "Ada" && user.preferredLanguage == "it")
            #expect(user.mailingListOptIn == true && user.createdAt != nil)
            #expect(Set(reply.json["tokens"]?.objectValue?.keys ?? [:].keys) == ["accessToken", "refreshToken"])
            let claims = try #require(JWTClaims(token: session.tokens.accessToken))
            #expect(claims.subject == user.id && claims.email == "ada@example.org")
            let iat = try #require(claims.issuedAt), exp = try #require(claims.expiresAt)
            #expect(exp.timeIntervalSince(iat) == 120)
            let header = try #require(session.tokens.accessToken.split(separator: ".").first)
            #expect(Self.base64URL(header).contains(#""alg":"HS256""#))
            let refreshToken = try #require(session.tokens.refreshToken)
            let refreshClaims = try #require(JWTClaims(token: refreshToken))
            let refreshExp = try #require(refreshClaims.expiresAt), refreshIat = try #require(refreshClaims.issuedAt)
            #expect(refreshExp.timeIntervalSince(refreshIat) == 3600)

            let me = try await http.get("/auth/me", token: session.tokens.accessToken)
            #expect(me.status == 200)
            #expect(
                Set(me.json.objectValue?.keys ?? [:].keys) == [
                    "id", "email", "name", "preferredLanguage", "mailingListOptIn", "createdAt", "updatedAt",
                ])
            #expect(try me.decode(UserProfile.self) == user)
        }
    }

    static func base64URL(_ part: Substring) -> String {
        var b64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b64.count % 4 != 0 { b64 += "=" }
        return String(decoding: Data(base64Encoded: b64) ?? Data(), as: UTF8.self)
    }

    /// One address written in another Unicode form (a precomposed or combining accent, full-width
    /// letters) is the same address: it made a second account for one person.
    @Test func aTakenEmailIs409WhateverItsUnicodeForm() async throws {
        try await InProcessServer.test { http in
            _ = try await http.register("\u{E1}da@example.org")
            _ = try await http.register("ada@example.org")
            for same in ["a\u{301}da@example.org", "\u{FF41}\u{FF44}\u{FF41}@example.org", "A\u{301}DA@EXAMPLE.ORG"] {
                let again = try await http.post(
                    "/auth/register", ["email": .string(same), "password": "another password"])
                #expect(again.status == 409, "\(same.unicodeScalars.map(\.value)): \(again.status) \(again.text)")
            }
        }
    }

    @Test func aTakenEmailIs409WhateverItsCase() async throws {
        try await InProcessServer.test { http in
            _ = try await http.register("walker@example.org")
            let again = try await http.post(
                "/auth/register", ["email": "WALKER@example.org", "password": "another password"])
            #expect(again.status == 409)
            #expect(
                again.error
                    == APIErrorBody(
                        statusCode: 409, messages: ["User with this email already exists"], error: "Conflict",
                        messageIsList: false))
        }
    }

    @Test func registrationIsValidatedFieldByFieldWithTheLiveMessages() async throws {
        let server = try await ServerProcess.start()
        let http = HTTPTestClient(server)
        let reply = try await http.post(
            "/auth/register",
            [
                "email": "not-an-email", "password": "short", "nickname": "x",
                "mailingListOptIn": "yes",
            ])
        #expect(reply.status == 400)
        let error = try #require(reply.error)
        #expect(error.messageIsList && error.error == "Bad Request" && error.statusCode == 400)
        #expect(
            Set(error.messages) == [
                "property nickname should not exist", "email must be an email",
                "password must be longer than or equal to 8 characters",
                "mailingListOptIn must be a boolean value",
            ])
        #expect(try server.stats()["users"] == 0)
        await server.stop()
    }

    @Test func loginAnswers201AndWrongCredentials401() async throws {
        let server = try await ServerProcess.start()
        let http = HTTPTestClient(server)
        try server.addUser("ada@example.org", password: "correct horse", name: "Ada")
        let ok = try await http.post("/auth/login", ["email": "ada@example.org", "password": "correct horse"])
        #expect(ok.status == 201)
        #expect(try ok.decode(AuthSession.self).user?.name == "Ada")
        for (email, password) in [("ada@example.org", "wrong horse"), ("nobody@example.org", "correct horse")] {
            let bad = try await http.post("/auth/login", ["email": .string(email), "password": .string(password)])
            #expect(bad.status == 401)
            #expect(bad.error?.messages == ["Invalid credentials"] && bad.error?.error == "Unauthorized")
        }
        let extra = try await http.post(
            "/auth/login", ["email": "ada@example.org", "password": "correct horse", "remember": true])
        #expect(extra.status == 400 && extra.error?.messages == ["property remember should not exist"])
        #expect(try server.stats()["logins"] == 1)
        await server.stop()
    }

    @Test func aPasswordIsCheckedWholeNotOnWhatBcryptReads() async throws {
        let server = try await ServerProcess.start()
        let http = HTTPTestClient(server)
        // bcrypt stops at a NUL and reads 72 bytes: such passwords are refused at registration...
        for (password, message) in [
            ("abcdefgh\u{0}tail", "password must not contain a NUL character"),
            (String(repeating: "é", count: 37), "password must be shorter than or equal to 72 bytes"),
        ] {
            let reply = try await http.post(
                "/auth/register", ["email": "nul@example.org", "password": .string(password)])
            #expect(reply.status == 400, "\(reply.text)")
            #expect(reply.error?.messages == [message])
        }
        // ...and never match at login, though bcrypt alone would say they do.
        let exactly72 = String(repeating: "a", count: 72)
        _ = try await http.register("ada@example.org", password: "abcdefgh")
        _ = try await http.register("bob@example.org", password: exactly72)
        for (email, password) in [
            ("ada@example.org", "abcdefgh\u{0}tail"), ("bob@example.org", exactly72 + "anything"),
        ] {
            let reply = try await http.post("/auth/login", ["email": .string(email), "password": .string(password)])
            #expect(reply.status == 401, "\(email): \(reply.status)")
        }
        let ok = try await http.post("/auth/login", ["email": "bob@example.org", "password": .string(exactly72)])
        #expect(ok.status == 201)
        // (A NUL cannot be in an argument; the password read from stdin can hold one.)
        do {
            _ = try server.admin(["user", "add", "carl@example.org"], stdin: Data("abcdefgh\u{0}x\n".utf8))
            Issue.record("user add took a password holding a NUL")
        } catch {
            #expect(
                "\(error)".contains("(64): walkscape-server: password must not contain a NUL character"), "\(error)")
        }
        await server.stop()
    }

    @Test func guessingIsLimitedPerClientAndKind() async throws {
        var options = ServerProcess.Options()
        options.extraArguments = ["--guesses-per-minute", "5"]
        let server = try await ServerProcess.start(options)
        let http = HTTPTestClient(server)
        let session = try await http.register("guesser@example.org")
        var statuses: [Int] = []
        var limited: Reply?
        for n in 0..<8 {
            let reply = try await http.post(
                "/vouchers/validate", ["code": .string("GUESS\(n)")], token: session.tokens.accessToken)
            statuses.append(reply.status)
            if reply.status == 429 { limited = reply }
        }
        #expect(statuses.prefix(5).allSatisfy { $0 != 429 }, "\(statuses)")
        #expect(statuses.suffix(3) == [429, 429, 429], "\(statuses)")
        #expect(limited?.error?.messages == ["ThrottlerException: Too Many Requests"])
        #expect(Int(limited?.header("Retry-After") ?? "") ?? 0 >= 1)
        // Another kind has its own allowance: logging in still works (one of five used by register).
        let login = try await http.post(
            "/auth/login", ["email": "guesser@example.org", "password": "correct horse battery"])
        #expect(login.status == 201)
        await server.stop()
    }

    @Test func aBucketRefillsAtItsRateAndForgetsNothingTooEarly() {
        let buckets = GuessBuckets(perMinute: 60)
        let start = ContinuousClock.now
        for _ in 0..<60 { #expect(buckets.take("login 10.0.0.1", now: start) == nil) }
        #expect(buckets.take("login 10.0.0.1", now: start) == 1)
        #expect(buckets.take("login 10.0.0.2", now: start) == nil)  // another client
        #expect(buckets.take("login 10.0.0.1", now: start + .milliseconds(1500)) == nil)  // one a second
        #expect(buckets.take("login 10.0.0.1", now: start + .milliseconds(1500)) == 1)
        #expect(GuessBuckets(perMinute: 0).take("x") == nil)
    }

    /// Past 10,000 clients the buckets are swept of the full ones (which say nothing), but not at
    /// every guess: with 15,000 clients all still guessing, each guess filtered every bucket
    /// (2.14 ms a guess, from 0.28). A sweep now happens when the count has doubled since the last.
    /// And a client whose bucket refilled while it waited is forgotten, as one that never guessed.
    @Test func manyClientsGuessingAreSweptNowAndThenNotAtEveryGuess() {
        let buckets = GuessBuckets(perMinute: 60)
        let start = ContinuousClock.now
        for client in 0..<15_000 {
            for _ in 0..<3 { _ = buckets.take("login \(client)", now: start) }
        }
        let before = buckets.sweeps
        for guess in 0..<2_000 { _ = buckets.take("login \(guess)", now: start + .seconds(1)) }
        #expect(buckets.sweeps - before <= 1, "\(buckets.sweeps - before) sweeps for 2,000 guesses")
        #expect(buckets.count == 15_000, "a client still guessing was forgotten")
        // A minute on every bucket is full again: the next sweep forgets them all.
        for client in 15_000..<45_000 { _ = buckets.take("login \(client)", now: start + .seconds(120)) }
        #expect(buckets.count == 30_000, "\(buckets.count) buckets kept: the 15,000 full ones were not forgotten")
    }

    /// Whose bucket a guess takes from: this machine is one client whatever loopback address or
    /// family it uses, an IPv4 address written as IPv6 is itself, and an IPv6 client is its /64
    /// (a host draws fresh addresses from its block at will).
    @Test func aClientIsItsAddressItsSixtyFourOrThisMachine() throws {
        func client(_ ip: String) throws -> String {
            GuessThrottleMiddleware.client(try SocketAddress(ipAddress: ip, port: 443))
        }
        #expect(try client("127.0.0.1") == client("127.0.0.9"))
        #expect(try client("127.0.0.1") == client("::1"))
        #expect(try client("127.0.0.1") == client("::ffff:127.0.0.2"))
        #expect(try client("10.1.2.3") == "10.1.2.3")
        #expect(try client("::ffff:10.1.2.3") == "10.1.2.3")
        #expect(try client("10.1.2.3") != client("10.1.2.4"))
        #expect(try client("2001:db8:1:2::5") == client("2001:db8:1:2:ffff:ffff:ffff:1"))
        #expect(try client("2001:db8:1:2::5") == "2001:db8:1:2::/64")
        #expect(try client("2001:db8:1:2::5") != client("2001:db8:1:3::5"))
        #expect(GuessThrottleMiddleware.client(nil) == "local")
    }

    @Test func meNeedsAValidToken() async throws {
        try await InProcessServer.test { http in
            let session = try await http.register("ada@example.org")
            let access = session.tokens.accessToken
            var parts = access.split(separator: ".").map(String.init)
            parts[1] = parts[1].dropLast() + (parts[1].hasSuffix("A") ? "B" : "A")
            let tampered = parts.joined(separator: ".")
            let unsigned = parts[0] + "." + parts[1] + "."
            let refresh = try #require(session.tokens.refreshToken)
            for token in [nil, "garbage", tampered, unsigned, refresh] {
                let reply = try await http.get("/auth/me", token: token)
                #expect(reply.status == 401, "\(token ?? "no token")")
                #expect(reply.error?.messages == ["Unauthorized"])
            }
        }
    }

    @Test func refreshRotatesAndAnOldRefreshTokenIsRefusedAfterUse() async throws {
        let server = try await ServerProcess.start()
        let http = HTTPTestClient(server)
        let session = try await http.register("ada@example.org")
        let first = try #require(session.tokens.refreshToken)
        let rotated = try await http.post("/auth/refresh", ["refreshToken": .string(first)])
        #expect(rotated.status == 201)
        #expect(Set(rotated.json.objectValue?.keys ?? [:].keys) == ["accessToken", "refreshToken"])
        let pair: AuthTokens = try rotated.decode()
        #expect(pair.refreshToken != first)
        #expect(try await http.get("/auth/me", token: pair.accessToken).status == 200)

        let reused = try await http.post("/auth/refresh", ["refreshToken": .string(first)])
        #expect(reused.status == 401 && reused.error?.messages == ["Invalid refresh token"])
        let asAccess = try await http.post("/auth/refresh", ["refreshToken": .string(session.tokens.accessToken)])
        #expect(asAccess.status == 401)
        let second = try #require(pair.refreshToken)
        let next = try await http.post("/auth/refresh", ["refreshToken": .string(second)])
        #expect(next.status == 201)
        let stats = try server.stats()
        #expect(stats["refreshes"] == 2 && stats["refreshesRefused"] == 1)
        await server.stop()
    }

    @Test func parallelRefreshesWithOneTokenSucceedExactlyOnce() async throws {
        let server = try await ServerProcess.start()
        let http = HTTPTestClient(server)
        let token = try #require(try await http.register("ada@example.org").tokens.refreshToken)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<10 {
                group.addTask { try await http.post("/auth/refresh", ["refreshToken": .string(token)]).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 201 }.count == 1)
        #expect(statuses.filter { $0 == 401 }.count == 9)
        #expect(try server.stats()["refreshes"] == 1)
        await server.stop()
    }

    @Test func twentyParallelRegistrationsOfOneEmailMakeExactlyOneAccount() async throws {
        let server = try await ServerProcess.start()
        let http = HTTPTestClient(server)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<20 {
                group.addTask {
                    try await http.post(
                        "/auth/register",
                        [
                            "email": .string(i % 2 == 0 ? "race@example.org" : "RACE@example.org"),
                            "password": .string("password \(i)"),
                        ]
                    ).status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 201 }.count == 1)
        #expect(statuses.filter { $0 == 409 }.count == 19)
        let stats = try server.stats()
        #expect(stats["users"] == 1 && stats["registrations"] == 1)
        #expect(try await http.get("/health").status == 200)
        await server.stop()
    }

    /// With `--token-ttl 5` (long enough for the requests before expiry on a busy machine): before expiry the granted user reads a protected tour; after it, the
    /// public routes ignore the token (403, not 401), the protected ones answer 401, and a refresh
    /// brings access back.
    @Test func anExpiredAccessTokenGets403OnPublicRoutesAnd401OnProtectedOnes() async throws {
        let dir = try TemporaryDirectory()
        let fixture = TourFixture(slug: "secret", isProtected: true)
        try fixture.write(in: dir.url)
        let server = try await ServerProcess.start(.init(tours: [dir.url], tokenTTL: 5))
        let http = HTTPTestClient(server)
        try server.addVoucher("SECRET", tour: fixture.id)
        let session = try await http.register("ada@example.org")
        let access = session.tokens.accessToken
        #expect(try await http.post("/vouchers/validate", ["code": "SECRET"], token: access).status == 201)
        #expect(try await http.get("/tours/\(fixture.id)/manifest?language=en", token: access).status == 200)
        #expect(try await http.get("/tours/\(fixture.id)/points?language=en", token: access).status == 200)

        // Issued for 5 s from the whole second before the registration answered: expired just
        // after its exp.
        let expiry = try #require(JWTClaims(token: access)?.expiresAt)
        try await Task.sleep(for: .seconds(max(0, expiry.timeIntervalSinceNow + 0.1)))
        let manifest = try await http.get("/tours/\(fixture.id)/manifest?language=en", token: access)
        #expect(manifest.status == 403)
        #expect(manifest.error?.messages == ["Access denied. Redeem a voucher to access this tour."])
        #expect(try await http.get("/tours/\(fixture.id)/points?language=en", token: access).status == 403)
        let list = try await http.get("/tours", token: access)
        #expect(list.status == 200 && list.json.arrayValue?.first?["hasAccess"] == nil)  // anonymous now
        #expect(try await http.get("/auth/me", token: access).status == 401)
        #expect(try await http.get("/vouchers/my-tours", token: access).status == 401)

        let refresh = try #require(session.tokens.refreshToken)
        let fresh: AuthTokens = try await http.post("/auth/refresh", ["refreshToken": .string(refresh)]).decode()
        #expect(try await http.get("/tours/\(fixture.id)/manifest?language=en", token: fresh.accessToken).status == 200)
        await server.stop()
    }

    @Test func tokensSurviveARestartOnTheSameDataFolder() async throws {
        let data = try TemporaryDirectory()
        let first = try await ServerProcess.start(data: data.url)
        let session = try await HTTPTestClient(first).register("ada@example.org")
        await first.stop()
        let second = try await ServerProcess.start(data: data.url)
        #expect(try await HTTPTestClient(second).get("/auth/me", token: session.tokens.accessToken).status == 200)
        await second.stop()
    }
}

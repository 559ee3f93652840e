import Foundation
import TestSupport
import Testing
import TourModel

/// `/vouchers/validate` and `/vouchers/my-tours`: 201 / 404 / 400 / 409 / 401, as live.
struct VoucherTests {
    struct Setup {
        let dir: TemporaryDirectory
        let secret: TourFixture
        let server: ServerProcess
        let http: HTTPTestClient
    }

    func setUp() async throws -> Setup {
        let dir = try TemporaryDirectory()
        let secret = TourFixture(slug: "secret-walk", isProtected: true, languages: ["en", "it"])
        try secret.write(in: dir.url)
        let server = try await ServerProcess.start(.init(tours: [dir.url]))
        return Setup(dir: dir, secret: secret, server: server, http: HTTPTestClient(server))
    }

    @Test func aCodeIsTrimmedUpperCasedAndUnlocksItsTour() async throws {
        let s = try await setUp()
        try s.server.addVoucher(" Florence24 ", tour: s.secret.id)
        let token = try await s.http.register("ada@example.org").tokens.accessToken
        let reply = try await s.http.post("/vouchers/validate", ["code": "  florence24\n"], token: token)
        #expect(reply.status == 201)
        #expect(Set(reply.json.objectValue?.keys ?? [:].keys) == ["success", "message", "tourId", "tourTitle"])
        let redemption: VoucherRedemption = try reply.decode()
        #expect(redemption.success && redemption.tourID == s.secret.id && redemption.tourTitle == "secret-walk (en)")
        let mine = try await s.http.get("/vouchers/my-tours", token: token)
        let granted: GrantedTours = try mine.decode()
        #expect(granted.tours.map(\.tourID) == [s.secret.id])
        #expect(granted.tours.first?.tourSlug == "secret-walk" && granted.tours.first?.grantedAt != nil)

        let again = try await s.http.post("/vouchers/validate", ["code": "FLORENCE24"], token: token)
        #expect(again.status == 409 && again.error?.messages == ["You already have access to this tour"])
        await s.server.stop()
    }

    @Test func everyRefusalHasTheLiveStatus() async throws {
        let s = try await setUp()
        try s.server.addVoucher("OLD", tour: s.secret.id, validUntil: "2020-01-01")
        try s.server.addVoucher("ONCE", tour: s.secret.id, maxUses: 1)
        try s.server.addVoucher("LOOSE", tour: nil)
        try s.server.addVoucher("GONE", tour: "no-such-tour")
        let first = try await s.http.register("first@example.org").tokens.accessToken
        let token = try await s.http.register("ada@example.org").tokens.accessToken
        #expect(try await s.http.post("/vouchers/validate", ["code": "ONCE"], token: first).status == 201)

        let cases: [(String, Int, String)] = [
            ("NOPE", 404, "Invalid voucher code"),
            ("OLD", 400, "Voucher has expired"),
            ("ONCE", 400, "Voucher has reached its maximum number of uses"),
            ("LOOSE", 400, "Voucher is not linked to a tour"),
            ("GONE", 400, "Voucher is not linked to a tour"),
        ]
        for (code, status, message) in cases {
            let reply = try await s.http.post("/vouchers/validate", ["code": .string(code)], token: token)
            #expect(reply.status == status, "\(code)")
            #expect(reply.error?.messages == [message], "\(code)")
        }
        let anonymous = try await s.http.post("/vouchers/validate", ["code": "ONCE"])
        #expect(anonymous.status == 401)
        #expect(try await s.http.get("/vouchers/my-tours").status == 401)

        let extra = try await s.http.post(
            "/vouchers/validate", ["code": "ONCE", "tourId": .string(s.secret.id)], token: token)
        #expect(extra.status == 400 && extra.error?.messages == ["property tourId should not exist"])
        let missing = try await s.http.post("/vouchers/validate", [:], token: token)
        #expect(
            missing.status == 400 && missing.error?.messages == ["code should not be empty", "code must be a string"])
        let number = try await s.http.post("/vouchers/validate", ["code": 42], token: token)
        #expect(number.status == 400 && number.error?.messages == ["code must be a string"])
        #expect(try await s.http.get("/vouchers/my-tours", token: token).decode(GrantedTours.self).tours.isEmpty)
        await s.server.stop()
    }

    @Test func aVoucherWithOneUseLeftIsGrantedOnceWhateverTheRace() async throws {
        let s = try await setUp()
        try s.server.addVoucher("LAST", tour: s.secret.id, maxUses: 1)
        var tokens: [String] = []
        for i in 0..<8 { tokens.append(try await s.http.register("walker\(i)@example.org").tokens.accessToken) }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for token in tokens {
                group.addTask { try await s.http.post("/vouchers/validate", ["code": "LAST"], token: token).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 201 }.count == 1)
        #expect(statuses.filter { $0 == 400 }.count == 7)
        #expect(try s.server.stats()["grants"] == 1)
        let list = try s.server.admin(["voucher", "list"]).stdout
        #expect(list.contains("LAST\t\(s.secret.id)\tuses 1/1"))
        await s.server.stop()
    }
}

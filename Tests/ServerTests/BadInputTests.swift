import Foundation
import NIOHTTP1
import TestSupport
import Testing
import TourModel

/// Whatever a client sends, a clear 4xx in the live error shape, never a crash, and the data folder
/// stays consistent.
struct BadInputTests {
    @Test func malformedBodiesGetAClear400() async throws {
        let server = try await ServerProcess.start()
        let http = HTTPTestClient(server)
        let deep = String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000)
        let bodies: [(String, Data)] = [
            ("truncated", Data(#"{"email": "a@b.co", "password": "#.utf8)),
            ("not JSON", Data("email=a@b.co".utf8)),
            ("bad UTF-8", Data([0x7B, 0x22, 0x65, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D])),
            ("deep nesting", Data(("{\"email\":" + deep + "}").utf8)),
            ("an array", Data("[1,2,3]".utf8)),
            ("a string", Data(#""hello""#.utf8)),
            ("NUL bytes", Data([0x7B, 0x00, 0x7D])),
        ]
        for (what, body) in bodies {
            for path in ["/auth/register", "/auth/login", "/auth/refresh", "/analytics/events"] {
                let reply = try await http.send(.POST, path, body: body)
                #expect(reply.status == 400, "\(what) to \(path): \(reply.status)")
                let error = try #require(reply.error, "\(what) to \(path): \(reply.text)")
                #expect(error.statusCode == 400 && error.error == "Bad Request" && !error.messages.isEmpty)
            }
        }
        #expect(try await http.get("/health").status == 200)
        #expect(try server.stats()["users"] == 0)
        await server.stop()
    }

    @Test func hugeBodiesAre413WithoutBeingRead() async throws {
        let server = try await ServerProcess.start()
        let http = HTTPTestClient(server)
        let huge = Data(repeating: 0x20, count: 8 * 1024 * 1024)
        for path in ["/auth/register", "/vouchers/validate", "/analytics/events"] {
            let reply = try await http.send(.POST, path, token: nil, body: huge)
            #expect(reply.status == (path == "/vouchers/validate" ? 401 : 413), "\(path)")
        }
        let token = try await http.register("ada@example.org").tokens.accessToken
        let voucher = try await http.send(.POST, "/vouchers/validate", token: token, body: huge)
        #expect(voucher.status == 413 && voucher.error?.error == "Payload Too Large")
        #expect(try await http.get("/health").status == 200)
        await server.stop()
    }

    @Test func aBodyWithAnotherContentTypeIsIgnoredAsLiveDoes() async throws {
        try await InProcessServer.test { http in
            let reply = try await http.post(
                "/auth/login", raw: #"{"email":"a@b.co","password":"x"}"#, contentType: "text/plain")
            #expect(reply.status == 400)
            #expect(
                reply.error?.messages == [
                    "email must be an email", "password should not be empty", "password must be a string",
                ])
        }
    }

    @Test func bogusTokensAreAnonymousOnPublicRoutesAnd401OnProtectedOnes() async throws {
        try await InProcessServer.test { http in
            func b64(_ s: String) -> String {
                Data(s.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            }
            let far = Int(Date().timeIntervalSince1970) + 3600
            let tokens = [
                "not.a.token", "", String(repeating: "a", count: 10_000),
                b64(#"{"alg":"none","typ":"JWT"}"#) + "." + b64(#"{"sub":"x","email":"a@b.co","iat":1,"exp":\#(far)}"#)
                    + ".",
                b64(#"{"alg":"HS256","typ":"JWT"}"#) + "." + b64(#"{"sub":"x","email":"a@b.co","iat":1,"exp":\#(far)}"#)
                    + ".c2lnbmF0dXJl",
            ]
            for token in tokens {
                let list = try await http.get("/tours", token: token)
                #expect(list.status == 200 && list.json.arrayValue?.first?["hasAccess"] == nil)
                #expect(try await http.get("/auth/me", token: token).status == 401)
            }
        }
    }

    @Test func garbageOnTheSocketIsA400AndTheServerCarriesOn() async throws {
        let server = try await ServerProcess.start()
        let answer = try RawHTTP.send(port: server.port, "THIS IS NOT HTTP\r\n\r\n")
        #expect(answer.status == 400)
        #expect(try await HTTPTestClient(server).get("/health").status == 200)
        await server.stop()
    }

    /// A chunked body whose chunk size is no number, negative, or past 64 bits is the client's
    /// fault: 400, not a logged 500.
    @Test func aBrokenChunkedBodyIsA400() async throws {
        let server = try await ServerProcess.start()
        for size in ["10000000000000002", "ffffffffffffffffffffffffffffffff", "-2", "0x2"] {
            let answer = try RawHTTP.send(
                port: server.port,
                "POST /analytics/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n\(size)\r\n")
            #expect(answer.status == 400, "chunk size \(size): \(answer.status)")
        }
        #expect(!server.log.contains("request failed"), "\(server.log)")
        #expect(try await HTTPTestClient(server).get("/health").status == 200)
        await server.stop()
    }
}

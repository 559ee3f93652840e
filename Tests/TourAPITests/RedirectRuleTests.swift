import Foundation
import ServiceTestSupport
import Testing
import TourAPI

/// What a followed redirect keeps: credentials only within the origin, never plain http outside
/// this machine.
struct RedirectRuleTests {
    let rule = RedirectRule()

    func request(_ url: String, method: HTTPRequest.Method = .get) -> HTTPRequest {
        HTTPRequest(
            method: method, url: URL(string: url)!,
            headers: ["Authorization": "Bearer secret", "Cookie": "c=1", "Accept": "application/json"],
            body: method == .post ? Data("{}".utf8) : nil)
    }

    @Test func sameOriginKeepsTheCredentials() throws {
        let next = try #require(
            rule.follow(request("https://api.example.org/tours"), status: 302, location: "/v2/tours"))
        #expect(next.url.absoluteString == "https://api.example.org/v2/tours")
        #expect(next.headers["Authorization"] == "Bearer secret")
    }

    @Test func anotherHostPortOrSchemeLosesThem() throws {
        for location in [
            "https://cdn.example.org/tours", "https://api.example.org:8443/tours", "http://127.0.0.1/tours",
        ] {
            let next = try #require(
                rule.follow(request("https://api.example.org/tours"), status: 307, location: location))
            #expect(next.headers["Authorization"] == nil, "\(location)")
            #expect(next.headers["Cookie"] == nil)
            #expect(next.headers["Accept"] == "application/json")
        }
    }

    @Test func plainHTTPOffThisMachineIsNotFollowedUnlessAllowed() {
        #expect(
            rule.follow(request("https://api.example.org/a"), status: 301, location: "http://evil.example.net/a") == nil
        )
        #expect(
            RedirectRule(allowInsecureHTTP: true).follow(
                request("https://api.example.org/a"), status: 301,
                location: "http://lan.example.net/a") != nil)
        #expect(
            rule.follow(request("https://api.example.org/a"), status: 301, location: "ftp://api.example.org/a") == nil)
    }

    @Test func onlyRedirectStatusesWithALocationAreFollowed() {
        #expect(rule.follow(request("https://api.example.org/a"), status: 200, location: "/b") == nil)
        #expect(rule.follow(request("https://api.example.org/a"), status: 304, location: "/b") == nil)
        #expect(rule.follow(request("https://api.example.org/a"), status: 302, location: nil) == nil)
    }

    @Test func seeOtherAndAPostedFoundBecomeGetsWithoutABody() throws {
        let post = request("https://api.example.org/a", method: .post)
        for status in [301, 302, 303] {
            let next = try #require(rule.follow(post, status: status, location: "/b"))
            #expect(next.method == .get && next.body == nil)
        }
        let kept = try #require(rule.follow(post, status: 307, location: "/b"))
        #expect(kept.method == .post && kept.body == Data("{}".utf8))
    }

    @Test func theExecutorFollowsAtMostTheLimitAndNamesALongerChain() async throws {
        let hops = (0..<10).map { ScriptedTransport.Step.answer(302, headers: ["Location": "/hop\($0)"]) }
        let transport = ScriptedTransport(hops)
        let executor = RequestExecutor(
            transport: transport, redirects: RedirectRule(maxRedirects: 3), timer: RecordedTimer())
        do {
            _ = try await executor.send(request("https://api.example.org/a"), idempotent: true)
            Issue.record("a chain of redirects longer than the limit was followed")
        } catch {
            #expect(error.kind == .redirectLoop && error.detail == "redirects GET /a more than 3 times")
        }
        #expect(transport.requests.map(\.url.path) == ["/a", "/hop0", "/hop1", "/hop2"])
    }

    @Test func aRedirectLoopIsCalledOneAndNotRetried() async throws {
        let transport = ScriptedTransport(handler: { request in
            .answer(302, headers: ["Location": request.url.path == "/a" ? "/b" : "/a"])
        })
        let executor = RequestExecutor(transport: transport, timer: RecordedTimer())
        do {
            _ = try await executor.send(request("https://api.example.org/a"), idempotent: true)
            Issue.record("a redirect loop was followed")
        } catch {
            let message = APIError(error, service: URL(string: "https://api.example.org")!).message
            #expect(
                message == "the service at api.example.org redirects GET /a in a loop (back to api.example.org/a)")
            #expect(APIError(error, service: URL(string: "https://api.example.org")!).kind == .protocolError)
        }
        #expect(transport.requests.map(\.url.path) == ["/a", "/b"])
    }

    @Test func theExecutorDropsTheTokenAtTheOriginBoundary() async throws {
        let transport = ScriptedTransport([
            .answer(302, headers: ["Location": "https://media.example.net/x.mp3"]), .answer(200),
        ])
        let executor = RequestExecutor(transport: transport, timer: RecordedTimer())
        _ = try await executor.send(request("https://api.example.org/a"), idempotent: true)
        #expect(transport.requests.map { $0.headers["Authorization"] } == ["Bearer secret", nil])
    }
}

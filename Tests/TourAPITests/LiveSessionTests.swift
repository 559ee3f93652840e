import Foundation
import TestSupport
import Testing
import TourAPI
import TourModel

/// TourAPI in-process against the real walkscape-server: many requests in flight with an expiring
/// token share one refresh, counted by the server.
@Suite(.serialized)
struct LiveSessionTests {
    @Test func concurrentRequestsWithAnExpiringTokenCauseOneRefresh() async throws {
        // Long enough that the 16 requests end well inside the renewed token's life on a busy
        // machine (at 2 s, a second renewal came due while they were still under way).
        let server = try await ServerProcess.start(.init(tokenTTL: 8))
        try server.addUser("ada@example.org", password: "correct horse battery")
        let transport = AsyncHTTPClientTransport()
        let channel = ServiceChannel(
            service: URL(string: server.baseURL)!, executor: RequestExecutor(transport: transport),
            userAgent: "walkscape-tests")
        let client = APIClient(channel: channel, credentials: MemoryCredentialStore())
        do {
            let session = try await client.login(email: "ada@example.org", password: "correct horse battery")
            // An 8 s token is renewed in its last quarter (2 s before its exp): 1.6 s into it.
            let expiry = try #require(session.tokens.accessExpiresAt)
            try await Task.sleep(for: .seconds(max(0, expiry.timeIntervalSinceNow - 0.4)))
            let emails = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<16 { group.addTask { try await client.me().email } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(emails == Array(repeating: "ada@example.org", count: 16))
            #expect(await client.session.refreshCount == 1)
            #expect(try server.stats()["refreshes"] == 1)
        } catch {
            try? await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
        await server.stop()
    }
}

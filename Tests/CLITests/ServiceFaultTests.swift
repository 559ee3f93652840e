import Foundation
import Synchronization
import TestSupport
import Testing
import TourAPI
import WalkscapeKit

#if canImport(Glibc)
    import Glibc
#endif

/// The client under the server's fault switches: bursts of 5xx, 429 with Retry-After, connections
/// cut mid-answer, answers slower than the timeout. Retries are announced on stderr.
@Suite(.serialized)
struct ServiceFaultTests {
    static let password = AccountJourneyTests.password

    func retries(_ r: ProcessResult) -> [String] {
        r.stderr.split(separator: "\n").map(String.init).filter { $0.contains("trying again in") }
    }

    /// A seeded server: the faults fall the same way on every run (the server draws them per request
    /// in arrival order, and these commands send one request at a time). With seed 1 the commands
    /// below meet faults, and none meets four in a row (which other seeds may deal).
    func server(_ options: ServerProcess.Options, tours: TemporaryDirectory) async throws -> ServerProcess {
        var options = options
        options.faultSeed = options.faultSeed ?? 1
        return try await AccountJourneyTests.server(options, tours: tours)
    }

    @Test func aBurstOf5xxIsRiddenOutByRetryingGets() async throws {
        let tours = try TemporaryDirectory()
        let server = try await server(.init(faultRate: 0.5), tours: tours)
        let walker = try ServiceWalker(server)
        var notices: [String] = []
        for command in [["tours"], ["show", "secret-garden"], ["show", "florence"], ["tours", "--json"]] {
            let r = try walker.run(command)
            #expect(r.status == 0, "\(command): \(r.stderr)")
            notices += retries(r)
        }
        #expect(!notices.isEmpty)
        #expect(
            notices.allSatisfy {
                $0.range(
                    of: #"^walkscape: GET /tours\S*: HTTP 50[023]; trying again in \d\.\d s \(attempt [234] of 4\)$"#,
                    options: .regularExpression) != nil
            }, "\(notices)")
        await server.stop()
    }

    @Test func aServiceThatKeepsFailingIsATemporaryFailureAfterFourAttempts() async throws {
        let tours = try TemporaryDirectory()
        let server = try await server(.init(faultRate: 1), tours: tours)
        let walker = try ServiceWalker(server)
        let r = try walker.run(["tours"])
        #expect(r.status == 75)
        #expect(retries(r).count == 3)
        #expect(
            r.stderr.split(separator: "\n").last?.range(
                of: #"^walkscape: the service failed on GET /tours \(HTTP 50[023]\); try again later$"#,
                options: .regularExpression) != nil, "\(r.stderr)")
        await server.stop()
    }

    @Test func loginAndRegisterAreNeverSentTwice() async throws {
        let tours = try TemporaryDirectory()
        let server = try await server(.init(faultRate: 1), tours: tours)
        try server.addUser("ada@example.org", password: Self.password)
        let walker = try ServiceWalker(server)
        for r in [
            try walker.login("ada@example.org", password: Self.password),
            try walker.register("bob@example.org", password: Self.password),
        ] {
            #expect(r.status == 75)
            #expect(retries(r).isEmpty, "\(r.stderr)")
            #expect(r.stderr.hasPrefix("walkscape: the service failed on POST /auth/"))
        }
        #expect(walker.credentials == nil)
        await server.stop()
    }

    @Test func tooManyRequestsWaitsAsTheServerAsks() async throws {
        let tours = try TemporaryDirectory()
        let server = try await server(.init(rateLimit: 1), tours: tours)
        let walker = try ServiceWalker(server)
        // show asks for the catalog, the tour and its points: three requests in well under a second.
        let started = ContinuousClock.now
        let r = try walker.run(["show", "florence"])
        #expect(r.status == 0, "\(r.stderr)")
        let waits = retries(r)
        #expect(!waits.isEmpty)
        #expect(waits.allSatisfy { $0.contains(": HTTP 429; trying again in 1.0 s") }, "\(waits)")
        #expect(ContinuousClock.now - started >= .seconds(1))
        await server.stop()
    }

    @Test func connectionsCutMidAnswerAreRetriedThenReported() async throws {
        let tours = try TemporaryDirectory()
        let flaky = try await server(.init(resetRate: 0.5), tours: tours)
        let walker = try ServiceWalker(flaky)
        var notices: [String] = []
        for command in [["tours"], ["show", "secret-garden"], ["tours", "--json"]] {
            let r = try walker.run(command)
            #expect(r.status == 0, "\(command): \(r.stderr)")
            notices += retries(r)
        }
        #expect(!notices.isEmpty)
        await flaky.stop()

        let broken = try await server(.init(resetRate: 1), tours: tours)
        let r = try ServiceWalker(broken).run(["tours"])
        #expect(r.status == 75)
        #expect(retries(r).count == 3)
        #expect(
            r.stderr.split(separator: "\n").last?.hasPrefix(
                "walkscape: the connection to 127.0.0.1:\(broken.port) broke") == true, "\(r.stderr)")
        await broken.stop()
    }

    @Test func anAnswerSlowerThanTheTimeoutIsATemporaryFailure() async throws {
        let tours = try TemporaryDirectory()
        let server = try await server(.init(latencyMilliseconds: 400), tours: tours)
        let walker = try ServiceWalker(server)
        let started = ContinuousClock.now
        let slow = try walker.run(["tours", "--timeout", "0.3"])
        #expect(slow.status == 75)
        #expect(retries(slow).count == 3)
        #expect(
            slow.stderr.split(separator: "\n").last
                == "walkscape: the service at 127.0.0.1:\(server.port) did not answer: no answer within 0.3 s; try again later"
        )
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(try walker.run(["tours", "--timeout", "5"]).status == 0)
        await server.stop()
    }

    @Test func doctorDoesNotHangOnAServiceThatNeverAnswers() async throws {
        // A socket that accepts connections (the kernel's backlog) and never says a word.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        #expect(listen(fd, 8) == 0)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let home = try TemporaryDirectory()
        // Without --timeout the check waits 3 s at most; here a shorter --timeout bounds it.
        let defaults = DoctorChecks(
            settings: try Settings.resolve(flags: SettingsFlags(home: home.path), environment: [:]),
            audioDevice: "null")
        #expect(defaults.apiTimeout == .seconds(3))
        let started = ContinuousClock.now
        let r = try runWalkscape(
            [
                "doctor", "--json", "--audio-device", "null", "--api-url", "http://127.0.0.1:\(port)", "--timeout",
                "0.5",
            ],
            home: home)
        #expect(ContinuousClock.now - started < .seconds(5))
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        let api = try #require((report["checks"] as? [[String: Any]])?.first { $0["name"] as? String == "api" })
        #expect(api["status"] as? String == "fail")
        #expect(
            (api["detail"] as? String)?.hasSuffix("did not answer: no answer within 0.5 s; try again later") == true,
            "\(api)")
    }
}

/// A retry's notice goes where the command says: a download hands it to its progress, which moves
/// its live line out of the way first (the notices were written on top of that line).
@Suite struct RetryNoticeTests {
    @Test func retryNoticesGoWhereTheCommandSends() async throws {
        let home = try TemporaryDirectory(prefix: "walkscape-notices")
        // Port 9 (discard) has no listener here: every connection is refused.
        let settings = try Settings.resolve(
            flags: SettingsFlags(home: home.path, apiURL: "http://127.0.0.1:9"), environment: [:])
        let said = Mutex<[String]>([])
        await #expect(throws: AppError.self) {
            try await ServiceConnection.run(
                settings, timer: NoWaiting(), notices: { text in said.withLock { $0.append(text) } }
            ) { client in try await client.tours() }
        }
        let notices = said.withLock { $0 }
        #expect(notices.count == 3, "\(notices)")
        #expect(
            notices.allSatisfy { $0.hasPrefix("walkscape: GET /tours: ") && $0.contains("trying again") }, "\(notices)")
    }
}

/// A clock whose waits take no time.
private struct NoWaiting: RetryTimer {
    func now() -> Date { Date() }
    func sleep(for duration: Duration) async throws {}
}

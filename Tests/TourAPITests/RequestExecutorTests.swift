import Foundation
import ServiceTestSupport
import Testing
import TourAPI

/// Which requests are retried, after what, and how long the executor waits: a scripted transport
/// and a recording clock, so nothing waits for real.
struct RequestExecutorTests {
    let url = URL(string: "https://api.example.org/tours")!
    let policy = RetryPolicy(
        maxAttempts: 4, baseDelay: .milliseconds(200), maxDelay: .seconds(1), maxRetryAfter: .seconds(10))

    func executor(_ transport: ScriptedTransport, timer: RecordedTimer, jitter: Double = 0.5) -> RequestExecutor {
        RequestExecutor(transport: transport, policy: policy, timer: timer, jitter: FixedJitter(value: jitter))
    }

    @Test func getIsRetriedThroughA5xxBurstWithJitteredBackoff() async throws {
        let transport = ScriptedTransport([.answer(503), .answer(500), .answer(502), .answer(200, body: "[]")])
        let timer = RecordedTimer()
        let response = try await executor(transport, timer: timer).send(
            HTTPRequest(method: .get, url: url), idempotent: true)
        #expect(response.status == 200)
        #expect(transport.requests.count == 4)
        // Half of each ceiling: 200 ms, 400 ms, 800 ms.
        #expect(timer.sleeps == [.milliseconds(100), .milliseconds(200), .milliseconds(400)])
    }

    @Test func attemptsAreBoundedAndTheLastAnswerIsReturned() async throws {
        let transport = ScriptedTransport(Array(repeating: .answer(503), count: 10))
        let timer = RecordedTimer()
        let response = try await executor(transport, timer: timer).send(
            HTTPRequest(method: .get, url: url), idempotent: true)
        #expect(response.status == 503)
        #expect(transport.requests.count == 4)
        #expect(timer.sleeps.count == 3)
    }

    /// A download's calls ride out a longer burst of 5xx, with short waits, and the notices count
    /// against the bound that applies; an unreachable service still fails after the usual four.
    @Test func thePersistentPolicyRidesOutLongerBurstsOf5xxButNotAnUnreachableService() async throws {
        let persistent = RetryPolicy.persistent(policy)
        #expect(persistent.maxAttempts == 4 && persistent.serverErrorAttempts == 10)
        let notices = NoticeLog()
        let burst = ScriptedTransport(Array(repeating: .answer(503), count: 9) + [.answer(200)])
        let timer = RecordedTimer()
        let executor = RequestExecutor(
            transport: burst, policy: persistent, timer: timer, jitter: FixedJitter(value: 1),
            onRetry: { notices.append($0) })
        let response = try await executor.send(HTTPRequest(method: .get, url: url), idempotent: true)
        #expect(response.status == 200)
        #expect(burst.requests.count == 10)
        #expect(timer.sleeps.allSatisfy { $0 <= .seconds(1) }, "\(timer.sleeps)")
        #expect(notices.all.map(\.maxAttempts) == Array(repeating: 10, count: 9))

        let endless = ScriptedTransport(Array(repeating: .answer(503), count: 20))
        let gaveUp = try await RequestExecutor(transport: endless, policy: persistent, timer: RecordedTimer())
            .send(HTTPRequest(method: .get, url: url), idempotent: true)
        #expect(gaveUp.status == 503 && endless.requests.count == 10)

        let down = ScriptedTransport(Array(repeating: .fail(.cannotConnect), count: 20))
        await #expect(throws: TransportError.self) {
            try await RequestExecutor(transport: down, policy: persistent, timer: RecordedTimer())
                .send(HTTPRequest(method: .get, url: url), idempotent: true)
        }
        #expect(down.requests.count == 4)
    }

    /// A service that answered a 5xx was reached: a broken connection after it is part of the same
    /// struggle, and gets the attempts the notice announced. It announced "attempt 4 of 10", then
    /// gave up at attempt 4 on a reset (the bound of the last failure's kind only).
    @Test func theAttemptsAnnouncedAreTheAttemptsMadeWhenFailuresOfBothKindsMix() async throws {
        let persistent = RetryPolicy.persistent(policy)
        let notices = NoticeLog()
        let transport = ScriptedTransport(
            [.fail(.connectionLost), .fail(.connectionLost), .answer(500)]
                + Array(repeating: .fail(.connectionLost), count: 3) + [.answer(200)])
        let executor = RequestExecutor(
            transport: transport, policy: persistent, timer: RecordedTimer(), jitter: FixedJitter(value: 0),
            onRetry: { notices.append($0) })
        let response = try await executor.send(HTTPRequest(method: .get, url: url), idempotent: true)
        #expect(response.status == 200)
        #expect(transport.requests.count == 7)
        #expect(notices.all.map(\.attempt) == Array(2...7))
        #expect(notices.all.map(\.maxAttempts) == [4, 4, 10, 10, 10, 10], "\(notices.all.map(\.maxAttempts))")
    }

    @Test func retryAfterSecondsAndDatesAreHonoured() async throws {
        let timer = RecordedTimer()
        let date = "Wed, 15 Jan 2027 08:00:03 GMT"
        let later = try #require(RetryAfter.httpDate(date))
        let clock = RecordedTimer(now: later.addingTimeInterval(-3))
        let transport = ScriptedTransport([.answer(429, headers: ["Retry-After": "2"]), .answer(200)])
        _ = try await executor(transport, timer: timer).send(HTTPRequest(method: .get, url: url), idempotent: true)
        #expect(timer.sleeps == [.seconds(2)])

        let dated = ScriptedTransport([.answer(503, headers: ["retry-after": date]), .answer(200)])
        _ = try await executor(dated, timer: clock).send(HTTPRequest(method: .get, url: url), idempotent: true)
        #expect(clock.sleeps == [.seconds(3)])
    }

    @Test func aRetryAfterBeyondTheCapEndsTheAttempts() async throws {
        let transport = ScriptedTransport([.answer(429, headers: ["Retry-After": "3600"]), .answer(200)])
        let timer = RecordedTimer()
        let response = try await executor(transport, timer: timer).send(
            HTTPRequest(method: .get, url: url), idempotent: true)
        #expect(response.status == 429)
        #expect(timer.sleeps.isEmpty)
    }

    @Test func clientErrorsAreNeverRetried() async throws {
        for status in [400, 401, 403, 404, 409, 413] {
            let transport = ScriptedTransport([.answer(status), .answer(200)])
            let response = try await executor(transport, timer: RecordedTimer()).send(
                HTTPRequest(method: .get, url: url), idempotent: true)
            #expect(response.status == status)
            #expect(transport.requests.count == 1)
        }
    }

    @Test func aPostThatMayHaveArrivedIsNeverSentAgain() async throws {
        let post = HTTPRequest(method: .post, url: url, body: Data("{}".utf8))
        let failing = ScriptedTransport([.answer(503), .answer(201)])
        #expect(try await executor(failing, timer: RecordedTimer()).send(post, idempotent: false).status == 503)
        #expect(failing.requests.count == 1)

        for kind in [TransportError.Kind.connectionLost, .timedOut] {
            let broken = ScriptedTransport([.fail(kind), .answer(201)])
            await #expect(throws: TransportError(kind, "scripted \(kind)")) {
                try await executor(broken, timer: RecordedTimer()).send(post, idempotent: false)
            }
            #expect(broken.requests.count == 1)
        }
    }

    @Test func aPostIsSentAgainWhenNothingWasSent() async throws {
        let post = HTTPRequest(method: .post, url: url, body: Data("{}".utf8))
        let transport = ScriptedTransport([.fail(.cannotConnect), .fail(.connectTimeout), .answer(201)])
        let timer = RecordedTimer()
        #expect(try await executor(transport, timer: timer).send(post, idempotent: false).status == 201)
        #expect(transport.requests.count == 3)
        #expect(transport.requests.allSatisfy { $0.body == Data("{}".utf8) })
        #expect(timer.sleeps == [.milliseconds(100), .milliseconds(200)])
    }

    @Test func transientTransportFailuresOfAGetAreRetriedThenReported() async throws {
        let transport = ScriptedTransport([
            .fail(.connectionLost), .fail(.timedOut), .fail(.connectionLost), .fail(.timedOut),
        ])
        await #expect(throws: TransportError(.timedOut, "scripted timedOut")) {
            try await executor(transport, timer: RecordedTimer()).send(
                HTTPRequest(method: .get, url: url), idempotent: true)
        }
        #expect(transport.requests.count == 4)
    }

    @Test func permanentTransportFailuresAreNotRetried() async throws {
        let transport = ScriptedTransport([.fail(.tls), .answer(200)])
        await #expect(throws: TransportError.self) {
            try await executor(transport, timer: RecordedTimer()).send(
                HTTPRequest(method: .get, url: url), idempotent: true)
        }
        #expect(transport.requests.count == 1)
    }

    @Test func aBodyThatBreaksOffIsAFailedAttemptWhenCollected() async throws {
        let transport = ScriptedTransport([.answerThenBreak(200), .answer(200, body: "[1]")])
        let response = try await executor(transport, timer: RecordedTimer())
            .send(HTTPRequest(method: .get, url: url), idempotent: true, collectingUpTo: 1024)
        #expect(try await response.body.collect(upTo: 1024) == Data("[1]".utf8))
        #expect(transport.requests.count == 2)

        let post = ScriptedTransport([.answerThenBreak(201), .answer(201)])
        await #expect(throws: TransportError(.connectionLost, "scripted break")) {
            try await executor(post, timer: RecordedTimer())
                .send(HTTPRequest(method: .post, url: url), idempotent: false, collectingUpTo: 1024)
        }
        #expect(post.requests.count == 1)
    }

    @Test func anAnswerLargerThanTheLimitIsRefusedNotRetried() async throws {
        let transport = ScriptedTransport([.answer(200, body: String(repeating: "x", count: 2000)), .answer(200)])
        await #expect(throws: TransportError.self) {
            try await executor(transport, timer: RecordedTimer())
                .send(HTTPRequest(method: .get, url: url), idempotent: true, collectingUpTo: 1000)
        }
        #expect(transport.requests.count == 1)
    }

    @Test func everyRetryIsAnnounced() async throws {
        let transport = ScriptedTransport([.answer(503), .fail(.connectionLost), .answer(200)])
        let notices = NoticeLog()
        var exec = executor(transport, timer: RecordedTimer())
        exec.onRetry = { notices.append($0) }
        _ = try await exec.send(HTTPRequest(method: .get, url: url), idempotent: true)
        #expect(notices.all.map(\.attempt) == [2, 3])
        #expect(notices.all.map(\.reason) == ["HTTP 503", "scripted connectionLost"])
        #expect(notices.all.allSatisfy { $0.request == "GET /tours" && $0.maxAttempts == 4 })
    }
}

final class NoticeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var notices: [RetryNotice] = []
    func append(_ notice: RetryNotice) { lock.withLock { notices.append(notice) } }
    var all: [RetryNotice] { lock.withLock { notices } }
}

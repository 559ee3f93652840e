import Analytics
import Foundation
import ServiceTestSupport
import TestSupport
import TourAPI
import TourModel

/// Events, outboxes and a scripted transport for the outbox's and the batcher's unit tests. The
/// transport is a seam stand-in: the proof against the real service is in CLITests/AnalyticsTests.
enum OutboxFixtures {
    static let service = "http://127.0.0.1:9"

    static func event(_ n: Int, name: String = "point_triggered", padding: Int = 0) -> AnalyticsEvent {
        var properties: [String: JSONValue] = [
            "eventId": .string(String(format: "00000000-0000-4000-8000-%012d", n)),
            "triggerType": "gps", "platform": "linux",
        ]
        if padding > 0 { properties["note"] = .string(String(repeating: "x", count: padding)) }
        return AnalyticsEvent(
            name: name, anonymousID: "a", tourID: "tour", pointID: "p\(n)", language: "en",
            timestamp: Date(timeIntervalSince1970: 1_800_000_000 + Double(n)), properties: properties)
    }

    static func outbox(_ home: TemporaryDirectory) throws -> Outbox {
        try Outbox.open(at: home.file("state/analytics.sqlite"))
    }

    static func fill(
        _ outbox: Outbox, _ range: ClosedRange<Int>, origin: EventOrigin = .service(service),
        offline: Bool? = false, padding: Int = 0
    ) throws {
        _ = try outbox.record(
            range.map { Recording(event: event($0, padding: padding), origin: origin, offline: offline) })
    }
}

/// Answers each delivery from a script (a closure of the batch), and remembers every batch.
final class ScriptedBatchTransport: BatchTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var batches: [[AnalyticsEvent]] = []
    private var checks = 0
    private let answer: @Sendable ([AnalyticsEvent], Int) -> DeliveryResult
    private let healthy: @Sendable () -> Bool

    /// `answer(batch, attempt)`: attempt counts from 1. `healthy`: what the health check says.
    init(
        healthy: @escaping @Sendable () -> Bool = { true },
        _ answer: @escaping @Sendable ([AnalyticsEvent], Int) -> DeliveryResult
    ) {
        self.answer = answer
        self.healthy = healthy
    }

    var sent: [[AnalyticsEvent]] { lock.withLock { batches } }
    /// How many times the health check was asked.
    var healthChecks: Int { lock.withLock { checks } }

    func serviceAnswers(timeout: Duration?) async -> Bool {
        lock.withLock { checks += 1 }
        return healthy()
    }

    func deliver(_ events: [AnalyticsEvent], timeout: Duration?) async -> DeliveryResult {
        let attempt = lock.withLock { () -> Int in
            batches.append(events)
            return batches.count
        }
        return answer(events, attempt)
    }
}

struct FixedJitter: JitterSource {
    var value: Double
    func fraction() -> Double { value }
}

import Foundation
import TourModel

extension APIClient {
    /// `GET /health`, tried once within `timeout` (a check must answer quickly, not retry).
    /// A 503 is a report, not an error; no answer at all is an error.
    public func health(timeout: Duration) async throws(APIError) -> HealthReport {
        var once = channel
        once.executor.policy = .once
        let clock = ContinuousClock()
        let started = clock.now
        let answer = try await once.perform(once.request(.get, "/health", timeout: timeout), idempotent: true)
        let latency = clock.now - started
        // A 503 carries the same body shape, saying what is down.
        let health = answer.data.isEmpty ? nil : try? once.decode(HealthStatus.self, from: answer)
        return HealthReport(status: answer.status, health: health, latency: latency)
    }
}

import TourModel

/// What `GET /health` said, and how long it took.
public struct HealthReport: Sendable {
    public var status: Int
    public var health: HealthStatus?
    public var latency: Duration

    public var isHealthy: Bool { status == 200 && (health?.isOK ?? false) }
}

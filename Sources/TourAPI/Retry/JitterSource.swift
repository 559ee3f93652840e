/// Where the jitter of a backoff comes from: uniform fractions in [0, 1).
public protocol JitterSource: Sendable {
    func fraction() -> Double
}

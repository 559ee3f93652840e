/// The fault switches, all off by default. Decisions are drawn from a seeded generator, one draw
/// sequence per request in arrival order, so a test that sends requests one at a time sees the same
/// faults on every run.
public struct FaultPlan: Sendable, Hashable {
    /// Probability that a request is answered with a 5xx instead of being handled.
    public var faultRate: Double
    /// Probability that a response's connection is closed mid-response (media: after part of the body).
    public var resetRate: Double
    /// Added before every request is handled, milliseconds.
    public var latencyMilliseconds: Int
    /// Media bodies are paced to at most this many bytes per second (0: unpaced).
    public var throttleBytesPerSecond: Int
    /// More than this many requests in one second are answered 429 with `Retry-After` (0: no limit).
    public var rateLimitPerSecond: Int
    /// Manifests declare sizes that are off by `misdeclaredBytes` (alternately more and fewer).
    public var misdeclareSize: Bool
    public var seed: UInt64

    /// How far a misdeclared size is off.
    public static let misdeclaredBytes: Int64 = 13

    public init(
        faultRate: Double = 0, resetRate: Double = 0, latencyMilliseconds: Int = 0,
        throttleBytesPerSecond: Int = 0, rateLimitPerSecond: Int = 0, misdeclareSize: Bool = false,
        seed: UInt64 = 1
    ) {
        self.faultRate = faultRate
        self.resetRate = resetRate
        self.latencyMilliseconds = latencyMilliseconds
        self.throttleBytesPerSecond = throttleBytesPerSecond
        self.rateLimitPerSecond = rateLimitPerSecond
        self.misdeclareSize = misdeclareSize
        self.seed = seed
    }

    /// True when any switch that acts per request is on.
    public var actsOnRequests: Bool {
        faultRate > 0 || resetRate > 0 || latencyMilliseconds > 0 || rateLimitPerSecond > 0
    }
}

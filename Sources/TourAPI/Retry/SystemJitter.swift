/// Jitter from the system's random number generator.
public struct SystemJitter: JitterSource {
    public init() {}
    public func fraction() -> Double { Double.random(in: 0..<1) }
}

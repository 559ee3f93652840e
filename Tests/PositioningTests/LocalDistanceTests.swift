import Testing
import TourModel

@testable import Positioning

@Suite struct LocalDistanceTests {
    /// Within 0.01 % (and 1 mm) of Vincenty for walking-scale pairs anywhere on earth.
    @Test func agreesWithVincentyAtWalkingScale() {
        var generator = SplitMix64(seed: 2026)
        var worst = 0.0
        for _ in 0..<20_000 {
            let a = Coordinate(
                latitude: Double.random(in: -85...85, using: &generator),
                longitude: Double.random(in: -180...180, using: &generator))
            let b = a.destination(
                distance: Double.random(in: 0...LocalDistance.maximum, using: &generator),
                bearing: Double.random(in: 0..<360, using: &generator))
            let exact = a.distance(to: b)
            let fast = LocalDistance.metres(a, b)
            let error = abs(fast - exact)
            #expect(error <= max(0.001, exact * 1e-4), "\(a) -> \(b): \(fast) vs \(exact)")
            worst = max(worst, exact > 1 ? error / exact : 0)
        }
        print("LocalDistance: worst relative error \(worst)")
    }

    @Test func crossesTheAntimeridianAndDefersToVincentyFarAway() {
        let a = Coordinate(latitude: 10, longitude: 179.9999)
        let b = Coordinate(latitude: 10, longitude: -179.9999)
        #expect(abs(LocalDistance.metres(a, b) - a.distance(to: b)) < 0.001)
        let far = Coordinate(latitude: 45, longitude: 11)
        let farther = Coordinate(latitude: 52, longitude: 13)
        #expect(LocalDistance.metres(far, farther) == far.distance(to: farther))
    }
}

/// A seeded generator, so a failure reproduces.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

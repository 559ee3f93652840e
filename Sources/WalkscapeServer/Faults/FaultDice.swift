import NIOConcurrencyHelpers

/// Deterministic randomness for the fault switches: the n-th request's draws depend only on the seed
/// and n (SplitMix64), so requests sent one after another meet the same faults on every run.
final class FaultDice: Sendable {
    /// The draws for one request, each in [0, 1).
    struct Roll: Sendable {
        var fault: Double
        var faultKind: Double
        var reset: Double
        var cut: Double
    }

    private let seed: UInt64
    private let counter = NIOLockedValueBox<UInt64>(0)

    init(seed: UInt64) { self.seed = seed }

    func next() -> Roll {
        let n = counter.withLockedValue { value -> UInt64 in
            value &+= 1
            return value
        }
        var state = seed &+ n &* 0x9E37_79B9_7F4A_7C15
        return Roll(
            fault: Self.unit(&state), faultKind: Self.unit(&state), reset: Self.unit(&state), cut: Self.unit(&state))
    }

    private static func unit(_ state: inout UInt64) -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }
}

import Foundation
import TourModel

/// Decides which fixes are good enough to act on (triggering rule 1 in DESIGN.md).
///
/// The upstream apps trigger on every fix and misfire on jitter and on the odd wild fix a
/// receiver emits after a tunnel. This filter is a pure value: no clock, no I/O, only the fixes
/// it has seen, so the walk core can run it in virtual time and every rule is a unit test.
///
/// Rules, in order:
/// 1. `mode` below 2D carries no position: `noFix`.
/// 2. A coordinate outside the WGS84 ranges (or not finite) is garbage: `invalidCoordinate`.
/// 3. A horizontal error estimate above `maxHorizontalError` is `tooInaccurate`. A fix with no
///    estimate at all passes unless `requireErrorEstimate` is set (GPX files rarely carry one).
/// 4. A timestamp not strictly after the last accepted fix (or the pending jump candidate) is
///    `timeNotForward`: replayed or reordered data must not move the walker backwards.
/// 5. Travel from the last accepted fix faster than `maxSpeed` is an `implausibleJump`. The
///    distance is first reduced by both fixes' error estimates, because a jump inside the combined
///    uncertainty is jitter, not travel. A lone outlier is dropped; but if the following fixes
///    agree with it (each plausible from the previous one) for `jumpConfirmations` fixes in a
///    row, the walker really is there (the first fix after a tunnel, a receiver that was wrong
///    before) and the latest of them is accepted.
public struct FixFilter: Sendable, Hashable {
    public struct Configuration: Sendable, Hashable, Codable {
        /// Metres. Fixes whose horizontal error estimate exceeds this are ignored (DESIGN.md: 50 m).
        public var maxHorizontalError: Double
        /// Metres per second. 10 m/s (36 km/h) is well beyond a running walker, yet far below the
        /// hundreds of metres per second a multipath outlier implies at 1 Hz.
        public var maxSpeed: Double
        /// How many consecutive mutually plausible fixes at a jumped-to position make it real.
        /// 2 means: the jump itself plus one fix that agrees with it.
        public var jumpConfirmations: Int
        /// When true, a fix without any horizontal error estimate is `tooInaccurate`.
        public var requireErrorEstimate: Bool

        public init(maxHorizontalError: Double = 50, maxSpeed: Double = 10, jumpConfirmations: Int = 2,
                    requireErrorEstimate: Bool = false) {
            self.maxHorizontalError = maxHorizontalError
            self.maxSpeed = maxSpeed
            self.jumpConfirmations = max(1, jumpConfirmations)
            self.requireErrorEstimate = requireErrorEstimate
        }

        public static let `default` = Configuration()
    }

    /// Why a fix was not accepted; the raw value is what `trace --json` and logs print.
    public enum Reason: String, Sendable, Hashable, Codable, CaseIterable {
        case noFix
        case invalidCoordinate
        case tooInaccurate
        case timeNotForward
        case implausibleJump
    }

    public enum Verdict: Sendable, Hashable {
        case accepted
        case rejected(Reason)

        public var isAccepted: Bool { self == .accepted }
    }

    public let configuration: Configuration
    /// The last fix this filter accepted; jumps are measured from it.
    public private(set) var lastAccepted: Fix?
    /// A fix that jumped away from `lastAccepted`, and how many fixes in a row now agree with it.
    private var candidate: Fix?
    private var candidateCount = 0

    public init(configuration: Configuration = .default) {
        self.configuration = configuration
    }

    public mutating func evaluate(_ fix: Fix) -> Verdict {
        guard fix.mode >= .twoD else { return .rejected(.noFix) }
        guard fix.coordinate.isValid else { return .rejected(.invalidCoordinate) }
        if let error = fix.horizontalError {
            guard error.isFinite, error <= configuration.maxHorizontalError else { return .rejected(.tooInaccurate) }
        } else if configuration.requireErrorEstimate {
            return .rejected(.tooInaccurate)
        }
        guard let last = lastAccepted else {
            accept(fix)
            return .accepted
        }
        guard fix.time > last.time else { return .rejected(.timeNotForward) }
        if isPlausible(from: last, to: fix) {
            accept(fix)
            return .accepted
        }
        if let pending = candidate {
            guard fix.time > pending.time else { return .rejected(.timeNotForward) }
            if isPlausible(from: pending, to: fix) {
                candidateCount += 1
                if candidateCount >= configuration.jumpConfirmations {
                    accept(fix)
                    return .accepted
                }
                candidate = fix
                return .rejected(.implausibleJump)
            }
        }
        candidate = fix
        candidateCount = 1
        if configuration.jumpConfirmations <= 1 {
            accept(fix)
            return .accepted
        }
        return .rejected(.implausibleJump)
    }

    /// Forgets history, e.g. after the walker paused for a long time or the source reconnected.
    public mutating func reset() {
        lastAccepted = nil
        candidate = nil
        candidateCount = 0
    }

    private mutating func accept(_ fix: Fix) {
        lastAccepted = fix
        candidate = nil
        candidateCount = 0
    }

    private func isPlausible(from a: Fix, to b: Fix) -> Bool {
        let dt = b.time.timeIntervalSince(a.time)
        guard dt > 0 else { return false }
        let slack = (a.horizontalError ?? 0) + (b.horizontalError ?? 0)
        let travel = max(0, LocalDistance.metres(a.coordinate, b.coordinate) - slack)
        return travel <= configuration.maxSpeed * dt
    }
}

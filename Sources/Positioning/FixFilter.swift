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
///    uncertainty is jitter, not travel. Time since the last accepted fix counts, so the first fix
///    after a tunnel or a gap is accepted at once when the walker could have got there.
///    A jump is believed only once the jumped-to position has *persisted*: at least
///    `jumpConfirmations` fixes in a row, each plausible from the one before, spanning at least
///    `jumpPersistence` seconds of the fixes' own time; the fix that completes that is accepted.
///    Multipath bursts (a handful of fixes hundreds of metres off, with a good HDOP) last
///    seconds and agree with each other, so agreement alone proves nothing; persistence does
///    (a receiver that was wrong before, a walker who really moved faster than `maxSpeed`).
public struct FixFilter: Sendable, Hashable {
    public struct Configuration: Sendable, Hashable, Codable {
        /// Metres. Fixes whose horizontal error estimate exceeds this are ignored (DESIGN.md: 50 m).
        public var maxHorizontalError: Double
        /// Metres per second. 10 m/s (36 km/h) is well beyond a running walker, yet far below the
        /// hundreds of metres per second a multipath outlier implies at 1 Hz.
        public var maxSpeed: Double
        /// How many consecutive mutually plausible fixes at a jumped-to position make it real
        /// (together with `jumpPersistence`). 2 means: the jump itself plus one fix that agrees.
        public var jumpConfirmations: Int
        /// Seconds (by the fixes' timestamps) a jumped-to position must persist, in mutually
        /// plausible fixes, before it is believed. 20 s outlasts the multipath bursts receivers
        /// emit in street canyons (a few seconds), and costs a walker whose receiver really was
        /// wrong before no more than 20 s; a tunnel exit never waits for it (rule 5 above).
        public var jumpPersistence: Double
        /// When true, a fix without any horizontal error estimate is `tooInaccurate`.
        public var requireErrorEstimate: Bool

        public init(maxHorizontalError: Double = 50, maxSpeed: Double = 10, jumpConfirmations: Int = 2,
                    jumpPersistence: Double = 20, requireErrorEstimate: Bool = false) {
            self.maxHorizontalError = maxHorizontalError
            self.maxSpeed = maxSpeed
            self.jumpConfirmations = max(1, jumpConfirmations)
            self.jumpPersistence = jumpPersistence.isFinite ? max(0, jumpPersistence) : 0
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
    /// Fixes that jumped away from `lastAccepted` and agree with each other: the first of them
    /// (persistence is measured from it), the latest, and how many there are.
    private var candidateStart: Fix?
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
        if let pending = candidate, let start = candidateStart {
            guard fix.time > pending.time else { return .rejected(.timeNotForward) }
            if isPlausible(from: pending, to: fix) {
                candidateCount += 1
                candidate = fix
                if hasPersisted(from: start, to: fix) {
                    accept(fix)
                    return .accepted
                }
                return .rejected(.implausibleJump)
            }
        }
        candidateStart = fix
        candidate = fix
        candidateCount = 1
        if hasPersisted(from: fix, to: fix) {
            accept(fix)
            return .accepted
        }
        return .rejected(.implausibleJump)
    }

    private func hasPersisted(from start: Fix, to latest: Fix) -> Bool {
        candidateCount >= configuration.jumpConfirmations
            && latest.time.timeIntervalSince(start.time) >= configuration.jumpPersistence
    }

    /// Forgets history, e.g. after the walker paused for a long time or the source reconnected.
    public mutating func reset() {
        lastAccepted = nil
        candidateStart = nil
        candidate = nil
        candidateCount = 0
    }

    private mutating func accept(_ fix: Fix) {
        lastAccepted = fix
        candidateStart = nil
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

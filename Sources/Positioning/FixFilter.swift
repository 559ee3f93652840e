import Foundation
import TourModel

/// Decides which fixes are good enough to act on (rule 1 of the walk, docs/walk.md; precisely, docs/positioning.md).
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
/// 6. Cold start: the first anchor needs `coldStartAgreement` mutually plausible fixes in a row.
///    Until then fixes are `held`; the fix that completes the agreement is accepted and the held
///    ones are `released` (accepted before it, in order). A held fix that the next one contradicts
///    (too far, or stamped earlier) is `dropped`: a bad first fix never becomes the anchor that
///    later true fixes are judged by.
/// 7. Drift: a receiver that reports its velocity (speed and course, Doppler-derived, which a slowly
///    building position bias does not share) is dead-reckoned from it. A fix farther than
///    `driftTolerance` plus its error estimate from where the velocity says the walker is, is
///    `drift`. The dead-reckoned position follows the fixes slowly (`driftTimeConstant`), so noise
///    and small velocity errors never add up; a disagreement that lasts `driftPersistence` is
///    believed (the fix becomes the new anchor); a receiver whose velocity keeps disagreeing with
///    its positions is not trusted for the rest of the walk.
/// 8. Clock steps: `clockStepConfirmations` fixes in a row stamped before the last accepted one,
///    moving forward among themselves, each plausible from the one before and the first near the
///    last accepted position, mean the receiver's clock stepped back: the last of them is accepted
///    and time goes on from it.
public struct FixFilter: Sendable, Hashable {
    public struct Configuration: Sendable, Hashable, Codable {
        /// Metres. Fixes whose horizontal error estimate exceeds this are ignored (50 m by default).
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
        /// Mutually plausible fixes in a row that make the first anchor (1: the first fix).
        public var coldStartAgreement: Int
        /// Metres a fix may be from its dead-reckoned position (plus its error estimate).
        public var driftTolerance: Double
        /// Seconds over which the dead-reckoned position is pulled to the fixes.
        public var driftTimeConstant: Double
        /// Seconds of disagreement with the velocity after which the fixes are believed.
        public var driftPersistence: Double
        /// Fixes in a row stamped before the last accepted one that make a clock step.
        public var clockStepConfirmations: Int

        public init(
            maxHorizontalError: Double = 50, maxSpeed: Double = 10, jumpConfirmations: Int = 2,
            jumpPersistence: Double = 20, requireErrorEstimate: Bool = false, coldStartAgreement: Int = 2,
            driftTolerance: Double = 20, driftTimeConstant: Double = 60, driftPersistence: Double = 90,
            clockStepConfirmations: Int = 3
        ) {
            self.maxHorizontalError = maxHorizontalError
            self.maxSpeed = maxSpeed
            self.jumpConfirmations = max(1, jumpConfirmations)
            self.jumpPersistence = jumpPersistence.isFinite ? max(0, jumpPersistence) : 0
            self.requireErrorEstimate = requireErrorEstimate
            self.coldStartAgreement = max(1, coldStartAgreement)
            self.driftTolerance = driftTolerance.isFinite ? max(0, driftTolerance) : .infinity
            self.driftTimeConstant = driftTimeConstant.isFinite ? max(1, driftTimeConstant) : 60
            self.driftPersistence = driftPersistence.isFinite ? max(0, driftPersistence) : 0
            self.clockStepConfirmations = max(1, clockStepConfirmations)
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
        /// The fix moved where the receiver's own speed and course say the walker did not go.
        case drift
    }

    public enum Verdict: Sendable, Hashable {
        case accepted
        case rejected(Reason)
        /// Cold start: kept until the fixes after it agree (then `released`) or not (`dropped`).
        case held

        public var isAccepted: Bool { self == .accepted }
    }

    public let configuration: Configuration
    /// The last fix this filter accepted; jumps are measured from it.
    public private(set) var lastAccepted: Fix?
    /// Fixes held at the cold start that the latest `.accepted` verdict confirmed: they count as
    /// accepted, in this order, before the fix just evaluated. Empty after any other verdict.
    public private(set) var released: [Fix] = []
    /// Held fixes the latest verdict gave up on (the fix after them disagreed): rejected as
    /// `implausibleJump`, after the fact.
    public private(set) var dropped: [Fix] = []
    /// Whether the latest accepted fix ended a believed jump (the walker's place was
    /// re-established, not followed). A clock step is not one: the walker did not move.
    public private(set) var latestWasJump = false
    /// Fixes that jumped away from `lastAccepted` and agree with each other: the first of them
    /// (persistence is measured from it), the latest, and how many there are.
    private var candidateStart: Fix?
    private var candidate: Fix?
    private var candidateCount = 0
    /// Cold start: fixes waiting for agreement.
    private var held: [Fix] = []
    /// Clock step: fixes stamped before `lastAccepted`, in a row.
    private var backwards: [Fix] = []
    private var reckoning = DeadReckoning()
    /// Whether the receiver's velocity is still trusted (rule 7): one that has contradicted the
    /// positions is not, for the rest of the walk.
    public var trustsVelocity: Bool { reckoning.isTrusted }
    /// What the receiver's speeds are multiplied by (1 unless they were found in another unit).
    var speedScale: Double { reckoning.speedScale }

    public init(configuration: Configuration = .default) {
        self.configuration = configuration
    }

    public mutating func evaluate(_ fix: Fix) -> Verdict {
        released = []
        dropped = []
        latestWasJump = false
        guard fix.mode >= .twoD else { return .rejected(.noFix) }
        guard fix.coordinate.isValid else { return .rejected(.invalidCoordinate) }
        if let error = fix.horizontalError {
            guard error.isFinite, error <= configuration.maxHorizontalError else { return .rejected(.tooInaccurate) }
        } else if configuration.requireErrorEstimate {
            return .rejected(.tooInaccurate)
        }
        guard let last = lastAccepted else { return coldStart(fix) }
        guard fix.time > last.time else {
            if clockStepped(to: fix, from: last) {
                accept(fix)
                return .accepted
            }
            return .rejected(.timeNotForward)
        }
        backwards = []
        if isPlausible(from: last, to: fix) {
            if reckoning.isDrift(fix, configuration: configuration) {
                if reckoning.driftHeld(since: fix.time) < configuration.driftPersistence { return .rejected(.drift) }
                reckoning.believe(fix)
            }
            accept(fix)
            return .accepted
        }
        if let pending = candidate, let start = candidateStart {
            guard fix.time > pending.time else { return .rejected(.timeNotForward) }
            if isPlausible(from: pending, to: fix) {
                candidateCount += 1
                candidate = fix
                if hasPersisted(from: start, to: fix) {
                    acceptJump(fix)
                    return .accepted
                }
                return .rejected(.implausibleJump)
            }
        }
        candidateStart = fix
        candidate = fix
        candidateCount = 1
        if hasPersisted(from: fix, to: fix) {
            acceptJump(fix)
            return .accepted
        }
        return .rejected(.implausibleJump)
    }

    /// The fixes still held at the end of a trace: nothing contradicted them, so they count.
    public mutating func finish() -> [Fix] {
        let rest = held
        if let last = rest.last { accept(last) }
        held = []
        return rest
    }

    private mutating func coldStart(_ fix: Fix) -> Verdict {
        if let previous = held.last {
            // The same instant again (a repeated epoch) is nothing new; an earlier one says the
            // held fixes' times are wrong (a first fix stamped an hour ahead held every later fix
            // back as not after it, for that hour): the agreement starts again from it.
            guard fix.time != previous.time else { return .rejected(.timeNotForward) }
            if fix.time < previous.time || !isPlausible(from: previous, to: fix) {
                dropped = held
                held = []
            }
        }
        held.append(fix)
        guard held.count >= configuration.coldStartAgreement else { return .held }
        released = Array(held.dropLast())
        held = []
        for earlier in released { accept(earlier) }
        accept(fix)
        return .accepted
    }

    private mutating func clockStepped(to fix: Fix, from last: Fix) -> Bool {
        if let previous = backwards.last {
            if fix.time > previous.time, isPlausible(from: previous, to: fix) {
                backwards.append(fix)
            } else {
                backwards = []
            }
        }
        if backwards.isEmpty {
            // The first fix of a step must be where the walker could be a few seconds on.
            let slack = (last.horizontalError ?? 0) + (fix.horizontalError ?? 0)
            guard LocalDistance.metres(last.coordinate, fix.coordinate) - slack <= configuration.maxSpeed * 5 else {
                return false
            }
            backwards = [fix]
        }
        guard backwards.count >= configuration.clockStepConfirmations else { return false }
        backwards = []
        return true
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
        held = []
        backwards = []
        reckoning = DeadReckoning()
    }

    private mutating func accept(_ fix: Fix) {
        reckoning.accepted(fix, configuration: configuration)
        lastAccepted = fix
        candidateStart = nil
        candidate = nil
        candidateCount = 0
        backwards = []
    }

    private mutating func acceptJump(_ fix: Fix) {
        reckoning = DeadReckoning()
        accept(fix)
        latestWasJump = true
    }

    private func isPlausible(from a: Fix, to b: Fix) -> Bool {
        let dt = b.time.timeIntervalSince(a.time)
        guard dt > 0 else { return false }
        let slack = (a.horizontalError ?? 0) + (b.horizontalError ?? 0)
        let travel = max(0, LocalDistance.metres(a.coordinate, b.coordinate) - slack)
        return travel <= configuration.maxSpeed * dt
    }
}

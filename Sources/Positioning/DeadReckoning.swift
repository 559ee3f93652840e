import Foundation
import TourModel

/// The fix filter's drift rule (rule 7 of `FixFilter`): where the receiver's own velocity says
/// the walker is.
///
/// A receiver's speed and course come from the Doppler shift of the satellites' signals, not from
/// the positions, so a position bias that builds slowly (a street canyon's reflections) does not
/// show in them. The dead-reckoned position advances by the velocity between fixes and is pulled
/// towards each accepted fix by `dt / driftTimeConstant`: noise and small velocity errors wash
/// out, a bias that builds over tens of seconds does not.
///
/// What it cannot catch: a receiver that reports no speed or course (many GPX files, some NMEA
/// sentences), a walker standing still while the bias builds slower than the pull (the tolerance
/// stays ahead of it), and drift along the direction of walking at the speed of walking. A
/// receiver whose velocity disagrees with its positions as a rule (speeds in other units, a
/// frozen or reversed course) is caught by three checks and then not trusted: speeds that sum to
/// less than half or more than twice the distance the positions cover; a course that points more
/// than `courseMiss` degrees away from where the fixes went, over two stretches of `courseStretch`
/// metres in a row, the fixes having gone as far as the speeds say (a course turned, not a
/// position pulled aside: a bias building across the way lengthens the fixes' path), or summing
/// to less than half their line (a course that swings about); and a second disagreement long
/// enough to be believed.
struct DeadReckoning: Sendable, Hashable {
    /// Where the velocity says the walker is, and when.
    private var position: Coordinate?
    private var time: Date?
    /// East and north metres per second at `time`; nil when the receiver did not say. A fix
    /// without a course carries the last one on for up to `maxGap` seconds from when it was
    /// measured (`velocityAt`).
    private var velocity: (east: Double, north: Double)?
    private var velocityAt: Date?
    /// When the current run of drift rejections began.
    private var driftSince: Date?
    /// Disagreements long enough to be believed, so far.
    private var believed = 0
    /// Distance by the velocities and by the positions, decaying over a few minutes.
    private var velocityPath = 0.0
    private var positionPath = 0.0
    private var lastSeen: Fix?
    private var reference: Fix?
    private var speedSinceReference = 0.0
    private var prediction: (time: Date, position: Coordinate?)?
    /// The course check: the current stretch, how many stretches in a row the course pointed
    /// away (or agreed), and whether that settled it.
    private var stretch: Stretch?
    private var courseMisses = 0
    private var courseAgreements = 0
    private var courseRefuted = false
    /// The speeds' unit check (`measureUnit`): its current window; on steady windows, the
    /// velocities and the fixes' lines along them, summed (decaying with τ = 180 s); and whether
    /// the speeds were shown to mean nothing.
    private var unitWindow: Stretch?
    /// The other unit the windows' sums last pointed to, and since when.
    private var unitSeen: (unit: Double, since: Date)?
    private var steadyByVelocity = 0.0
    private var steadyByPosition = 0.0
    private var speedRefuted = false
    /// What the receiver's speeds are multiplied by: 1, until steady windows show them in
    /// other units (`measureUnit`).
    private(set) var speedScale = 1.0
    private var lastVelocity: (east: Double, north: Double)?
    private var scale: (latitude: Double, north: Double, east: Double)?

    /// Below this speed (m/s) a receiver's course is noise: the walker is taken to stand still.
    static let standing = 0.3
    /// Longer gaps between fixes start over from the fix.
    static let maxGap = 10.0
    /// Metres of path before the speeds are compared with the positions.
    static let trustAfter = 40.0
    /// Metres (by the positions or the velocity) of a stretch on which the course is judged: four
    /// times a fix's usual noise, so the stretch's direction is known within 10-20°; two
    /// stretches are what a walker with a fix every 10 s covers in 30-40 s.
    static let courseStretch = 20.0
    /// Degrees between the course and where the fixes went that count against the course. A
    /// turn between sparse fixes bends the averaged velocities by up to 45°.
    static let courseMiss = 60.0
    /// A stretch's course is steady when its velocities sum to this share of its speeds (a
    /// course within about ±25° of its mean).
    static let steadyCourse = 0.95
    /// Speeds over steady windows against the fixes' lines along them: outside this (and near
    /// another unit), other units, and rescaled.
    static let steadySpeedRatio = 0.6...1.6

    /// A stretch the course is judged on: where it began, the velocities summed (east and north
    /// metres) and the speeds (metres) since, over how many intervals.
    private struct Stretch {
        let start: Fix
        var byVelocity = (east: 0.0, north: 0.0)
        var bySpeed = 0.0
        var intervals = 0

        /// One interval of `dt` seconds between velocities `v0` and `v1`, summed in.
        mutating func add(
            _ v0: (east: Double, north: Double), _ v1: (east: Double, north: Double), over dt: Double
        ) {
            intervals += 1
            byVelocity.east += (v0.east + v1.east) / 2 * dt
            byVelocity.north += (v0.north + v1.north) / 2 * dt
            let s0 = (v0.east * v0.east + v0.north * v0.north).squareRoot()
            let s1 = (v1.east * v1.east + v1.north * v1.north).squareRoot()
            bySpeed += (s0 + s1) / 2 * dt
        }
    }

    static func velocity(of fix: Fix) -> (east: Double, north: Double)? {
        guard let speed = fix.speed, speed.isFinite, speed >= 0 else { return nil }
        if speed < standing { return (0, 0) }
        guard let track = fix.track, track.isFinite else { return nil }
        let a = track * .pi / 180
        return (speed * sin(a), speed * cos(a))
    }

    /// The last fix's velocity: each fix's is needed twice (for its prediction, then when it is
    /// judged drift or accepted), and its sine and cosine were about 5 % of a fast preview's time.
    private var fixVelocity: (time: Date, speed: Double?, track: Double?, value: (east: Double, north: Double)?)?

    private mutating func velocity(of fix: Fix) -> (east: Double, north: Double)? {
        if let cached = fixVelocity, cached.time == fix.time, cached.speed == fix.speed, cached.track == fix.track {
            return cached.value
        }
        let value = Self.velocity(of: fix).map { (east: $0.east * speedScale, north: $0.north * speedScale) }
        fixVelocity = (fix.time, fix.speed, fix.track, value)
        return value
    }

    var isTrusted: Bool {
        guard believed < 2, !courseRefuted, !speedRefuted else { return false }
        guard velocityPath >= Self.trustAfter || positionPath >= 3 * Self.trustAfter else { return true }
        let ratio = velocityPath / max(positionPath, 1)
        return ratio >= 0.5 && ratio <= 2
    }

    /// The dead-reckoned position at `fix`'s time, when it can be known. Computed once per fix:
    /// the drift test and the acceptance that follows it share it.
    private mutating func predicted(at fix: Fix) -> Coordinate? {
        if let cached = prediction, cached.time == fix.time { return cached.position }
        var result: Coordinate?
        if let position, let time, let v0 = velocity, let v1 = reckoningVelocity(at: fix) {
            let dt = fix.time.timeIntervalSince(time)
            if dt > 0, dt <= Self.maxGap {
                let east = (v0.east + v1.east) / 2 * dt, north = (v0.north + v1.north) / 2 * dt
                let scale = metresPerDegree(at: position.latitude)
                result = Coordinate(
                    latitude: position.latitude + north / scale.north,
                    longitude: Coordinate.wrappedLongitude(position.longitude + east / max(1, scale.east)))
            }
        }
        prediction = (fix.time, result)
        return result
    }

    /// Metres per degree near `latitude`, recomputed only when the walk has moved a kilometre or
    /// so north or south (the figures change by parts per million over that).
    private mutating func metresPerDegree(at latitude: Double) -> (north: Double, east: Double) {
        if let s = scale, abs(s.latitude - latitude) < 0.01 { return (s.north, s.east) }
        let m = Geodesy.metresPerDegree(atLatitude: latitude)
        scale = (latitude, m.north, m.east)
        return m
    }

    /// How far a fix `dt` seconds after the last may be from where the velocity says, a turn
    /// between them aside: the tolerance, its error estimate, and 0.3 m/s of velocity error.
    private static func tolerance(for fix: Fix, after dt: Double, _ configuration: FixFilter.Configuration) -> Double {
        configuration.driftTolerance + (fix.horizontalError ?? 0) + 0.3 * dt
    }

    /// Whether `fix` (plausible by speed) is where its velocity says the walker cannot be. Keeps
    /// reckoning forward either way, so a long disagreement is measured from the last agreement.
    mutating func isDrift(_ fix: Fix, configuration: FixFilter.Configuration) -> Bool {
        observe(fix)
        guard isTrusted, let expected = predicted(at: fix) else {
            driftSince = nil
            return false
        }
        let miss = LocalDistance.metres(expected, fix.coordinate)
        let dt = fix.time.timeIntervalSince(time ?? fix.time)
        // Between fixes seconds apart the walker may have turned at any moment: averaging the two
        // velocities misses the place by up to half their difference times the interval (a
        // cyclist round a corner with a fix every 8 s: 28 m), which a drift, building while the
        // velocity stays the same, never adds.
        var turn = 0.0
        if let v0 = velocity, let v1 = reckoningVelocity(at: fix) {
            let de = v1.east - v0.east, dn = v1.north - v0.north
            turn = (de * de + dn * dn).squareRoot() * max(dt / 2, Self.velocityLag)
        }
        let allowed = Self.tolerance(for: fix, after: dt, configuration) + turn
        guard miss > allowed else {
            driftSince = nil
            return false
        }
        position = expected
        time = fix.time
        keepVelocity(of: fix)
        prediction = nil
        if driftSince == nil { driftSince = fix.time }
        return true
    }

    /// Seconds a receiver's velocity may lag its positions (a smoothing filter): a turn shows in
    /// the course that much after the fixes turned, and the reckoning ran on along the old course
    /// meanwhile. With a fix a second, a turn was allowed half a second of it: a cyclist at 6.5-8 m/s
    /// whose velocity lagged 2-3 s had every fix after a corner refused as drift until the 90 s
    /// rule believed them, points 13-86 s late or never heard.
    static let velocityLag = 2.5

    /// Seconds since the current run of drift rejections began.
    func driftHeld(since now: Date) -> Double {
        driftSince.map { now.timeIntervalSince($0) } ?? 0
    }

    /// A disagreement lasted: the fixes win, and the receiver's velocity is trusted less.
    mutating func believe(_ fix: Fix) {
        believed += 1
        driftSince = nil
        position = nil
        prediction = nil
    }

    /// An accepted fix: pull the reckoning towards it (or start from it).
    mutating func accepted(_ fix: Fix, configuration: FixFilter.Configuration) {
        if lastSeen?.time != fix.time { observe(fix) }
        driftSince = nil
        if let expected = predicted(at: fix) {
            let dt = fix.time.timeIntervalSince(time ?? fix.time)
            var pull = min(1, dt / configuration.driftTimeConstant)
            // A miss past the drift tolerance was let through for a turn between the fixes (see
            // `isDrift`): the turn excuses it once. Kept, it threw the fix after off by as much,
            // with no turn to excuse it (a cyclist round a bend every 10 s: each fix after the
            // second bend refused as drift). What stays is what a fix without a turn may leave.
            let base = Self.tolerance(for: fix, after: dt, configuration)
            let miss = LocalDistance.metres(expected, fix.coordinate)
            if miss > base { pull = 1 - (1 - pull) * base / miss }
            let north = (fix.coordinate.latitude - expected.latitude) * pull
            // The short way round: across the antimeridian 179.99 to -179.99 is 0.02°, not 359.98°.
            let east = fix.coordinate.longitudeDifference(from: expected) * pull
            position = Coordinate(
                latitude: expected.latitude + north, longitude: Coordinate.wrappedLongitude(expected.longitude + east))
        } else {
            position = fix.coordinate
        }
        time = fix.time
        keepVelocity(of: fix)
        prediction = nil
    }

    /// The velocity to reckon with at `fix`: its own, or for a fix with a speed but no course
    /// (one in ten, from some receivers) its speed along the last course measured, up to
    /// `maxGap` seconds old. Without it such a fix restarted the reckoning from itself, drifted
    /// or not: one in ten turned rule 7 off, and a drift onto a U's way back played its points
    /// early. Only the course is carried: a speed carried over from a glitch (20 m/s for one fix)
    /// ran the reckoning ahead of the fixes, and every fix after was drift for 90 s.
    private mutating func reckoningVelocity(at fix: Fix) -> (east: Double, north: Double)? {
        if let v = velocity(of: fix) { return v }
        // (A fix standing has its own velocity, course or none: nothing to carry.)
        guard let speed = fix.speed, speed.isFinite, speed >= 0, let v = velocity, let at = velocityAt,
            fix.time.timeIntervalSince(at) <= Self.maxGap
        else { return nil }
        let carried = (v.east * v.east + v.north * v.north).squareRoot()
        guard carried >= Self.standing else { return nil }
        return (v.east / carried * speed, v.north / carried * speed)
    }

    private mutating func keepVelocity(of fix: Fix) {
        if let v = velocity(of: fix) {
            velocity = v
            velocityAt = fix.time
        } else if let v = reckoningVelocity(at: fix) {
            // The course carried on, at this fix's speed; still as old as when it was measured.
            velocity = v
        } else {
            velocity = nil
            velocityAt = nil
        }
    }

    /// Sums the path by speed and by position (straight lines between fixes at least 20 s apart,
    /// so a fix's noise does not add up) over every fix seen, decaying with τ = 180 s; and judges
    /// the course on each stretch.
    private mutating func observe(_ fix: Fix) {
        let v1 = velocity(of: fix)
        defer {
            lastSeen = fix
            // Again: the course check may have rescaled the speeds.
            lastVelocity = velocity(of: fix)
        }
        guard let last = lastSeen else {
            reference = fix
            stretch = Stretch(start: fix)
            return
        }
        let dt = fix.time.timeIntervalSince(last.time)
        judgeCourse(fix, dt: dt, v0: lastVelocity, v1: v1)
        measureUnit(fix, dt: dt, v0: lastVelocity, v1: v1)
        guard dt > 0, dt <= Self.maxGap, let s0 = last.speed, let s1 = fix.speed, s0.isFinite, s1.isFinite else {
            reference = fix
            speedSinceReference = 0
            return
        }
        speedSinceReference += (s0 + s1) / 2 * dt * speedScale
        guard let reference, fix.time.timeIntervalSince(reference.time) >= 20 else { return }
        let decay = exp(-fix.time.timeIntervalSince(reference.time) / 180)
        velocityPath = velocityPath * decay + speedSinceReference
        positionPath = positionPath * decay + LocalDistance.metres(reference.coordinate, fix.coordinate)
        self.reference = fix
        speedSinceReference = 0
    }

    /// The course check, stretch by stretch: the velocities summed (a vector) against the
    /// straight line the fixes moved, and the speeds summed (the path's length). A course that
    /// held steady (the velocities' sum nearly as long as the speeds') and pointed more than
    /// `courseMiss` away from the fixes' line, as long as it (a course turned: a bias building
    /// across the way makes the fixes' line longer), counts against the course; so does a course
    /// swinging about while the fixes go one way as far as the speeds say (the velocities sum to
    /// under half the line). A stretch with a turn in it is not judged by its angle: a course
    /// lagging a walker round a plaza's circles points away from where they went, and a drift
    /// later played points early once that had been taken for a broken course. Two stretches
    /// against in a row refute the course; three for it in a row restore it. (The speeds' unit is
    /// `measureUnit`'s.)
    private mutating func judgeCourse(
        _ fix: Fix, dt: Double, v0: (east: Double, north: Double)?, v1: (east: Double, north: Double)?
    ) {
        guard dt > 0, dt <= Self.maxGap, let v0, let v1, var current = stretch else {
            stretch = Stretch(start: fix)
            return
        }
        current.add(v0, v1, over: dt)
        let start = current.start
        let (east, north) = line(from: start, to: fix)
        let byPosition = (east * east + north * north).squareRoot()
        let v = current.byVelocity
        let byVelocity = (v.east * v.east + v.north * v.north).squareRoot()
        let bySpeed = current.bySpeed
        guard max(byPosition, bySpeed) >= Self.courseStretch else {
            stretch = current
            return
        }
        stretch = Stretch(start: fix)
        // The fixes stood, or barely moved: no verdict (a receiver saying it moves while its
        // fixes stand is the path sums' to judge).
        guard byPosition >= Self.courseStretch / 2 else { return }
        if byPosition >= Self.courseStretch, byVelocity < 0.5 * byPosition, bySpeed >= 0.75 * byPosition {
            courseMissed()
            return
        }
        guard byVelocity >= Self.courseStretch / 2, byVelocity >= Self.steadyCourse * bySpeed else { return }
        let cosine = (east * v.east + north * v.north) / (byPosition * byVelocity)
        let angle = acos(max(-1, min(1, cosine))) * 180 / .pi
        guard angle > Self.courseMiss else {
            courseMisses = 0
            // Two velocities that happen to agree say little of a course that swings about:
            // only a stretch of three fixes or more counts for it.
            if current.intervals >= 2 {
                courseAgreements += 1
                if courseAgreements >= 3 { courseRefuted = false }
            }
            return
        }
        let noise = ((start.horizontalError ?? 5) + (fix.horizontalError ?? 5)) / 2
        guard abs(byPosition - byVelocity) <= 0.25 * max(byPosition, byVelocity) + noise else { return }
        courseMissed()
    }

    /// The speeds' unit, window by window (`unitWindow` seconds, however far the fixes went): on
    /// a window whose course held steady, the velocities summed (a vector) against the fixes' line
    /// measured along it. Measured along, the fixes' noise adds nothing on average (their line's
    /// length grows with it: 15 m of slowly wandering noise under an HDOP of 0.9 made the lines
    /// of 20 m stretches 1.9 times the speeds', which were then taken for knots and scaled up, and
    /// the reckoning ran ahead: every fix refused as drift for 90 s at a time, points 80-90 s
    /// late); and a window ends by time, not where the noise carried the fixes 20 m. Once the
    /// sums of such windows differ by `unitEvidence` metres, and have put the speeds outside
    /// `steadySpeedRatio` of the fixes near the same unit another receiver might use for
    /// `unitPersistence` seconds, the speeds are taken in the fixes' units.
    private mutating func measureUnit(
        _ fix: Fix, dt: Double, v0: (east: Double, north: Double)?, v1: (east: Double, north: Double)?
    ) {
        // Once: a receiver's unit does not change during a walk, and a drift along the way (the
        // fixes running ahead of the speeds) can look like another; a rescale restarts the
        // reckoning from the fix at hand, which a drift would then have placed.
        guard speedScale == 1 else { return }
        guard dt > 0, dt <= Self.maxGap, let v0, let v1, var window = unitWindow else {
            unitWindow = Stretch(start: fix)
            return
        }
        window.add(v0, v1, over: dt)
        let start = window.start
        let seconds = fix.time.timeIntervalSince(start.time)
        guard seconds >= Self.unitWindow else {
            unitWindow = window
            return
        }
        unitWindow = Stretch(start: fix)
        let v = window.byVelocity
        let byVelocity = (v.east * v.east + v.north * v.north).squareRoot()
        guard byVelocity >= Self.courseStretch / 4, byVelocity >= Self.steadyCourse * window.bySpeed else { return }
        let (east, north) = line(from: start, to: fix)
        let decay = exp(-seconds / 180)
        steadyByVelocity = steadyByVelocity * decay + byVelocity
        steadyByPosition = steadyByPosition * decay + (east * v.east + north * v.north) / byVelocity
        // A course pointing away from where the fixes went is the course check's to judge. The
        // noise's share of the fixes' line stays within about twice the noise however far they
        // went (it is the noise at the two ends); another unit's share grows with every metre.
        guard steadyByPosition > 0, abs(steadyByVelocity - steadyByPosition) >= Self.unitEvidence,
            case let ratio = steadyByVelocity / steadyByPosition, !Self.steadySpeedRatio.contains(ratio)
        else {
            unitSeen = nil
            return
        }
        if let unit = Self.otherUnit(near: ratio) {
            // The same unit for `unitPersistence` seconds of windows: noise that wanders (15 m
            // over 40 s) put the sums near a unit for a window or two in one walk of forty.
            guard let seen = unitSeen, seen.unit == unit else {
                unitSeen = (unit, fix.time)
                return
            }
            if fix.time.timeIntervalSince(seen.since) >= Self.unitPersistence { rescaleSpeeds(by: unit) }
        } else if ratio < 0.2 || ratio > 5 {
            // Beyond any unit: the speeds mean nothing.
            speedRefuted = true
        }
    }

    /// East and north metres from fix `a` to fix `b`.
    private mutating func line(from a: Fix, to b: Fix) -> (east: Double, north: Double) {
        let scale = metresPerDegree(at: b.coordinate.latitude)
        return (
            b.coordinate.longitudeDifference(from: a.coordinate) * scale.east,
            (b.coordinate.latitude - a.coordinate.latitude) * scale.north
        )
    }

    /// Seconds of a window the speeds' unit is measured on.
    static let unitWindow = 10.0
    /// Seconds the same other unit must be what the windows say before the speeds are rescaled.
    static let unitPersistence = 20.0
    /// Metres by which the speeds' sum must differ from the fixes' lines before another unit is
    /// believed: more than 15 m of noise (under any error estimate) puts at either end.
    static let unitEvidence = 40.0
    /// What a receiver's speeds may be multiplied by, written in another unit than metres per
    /// second: knots and km/h taken for each other (1.852), knots for m/s (1.944), km/h (3.6),
    /// miles per hour (2.237), and their inverses.
    static let otherUnits: [Double] = {
        let units = [1.852, 1.944, 3.6, 2.237]
        return units + units.map { 1 / $0 }
    }()

    /// The unit `ratio` is within 10 % of, if any (the nearest).
    static func otherUnit(near ratio: Double) -> Double? {
        otherUnits.filter { abs(ratio / $0 - 1) <= 0.1 }.min { abs(ratio / $0 - 1) < abs(ratio / $1 - 1) }
    }

    /// Speeds in another unit (`ratio`, one of `otherUnits`) are taken in the fixes' units from
    /// here on, so the drift rule goes on with them.
    private mutating func rescaleSpeeds(by ratio: Double) {
        speedScale /= ratio
        fixVelocity = nil
        // Reckoned with the wrong speeds, the position is wherever they took it: start over
        // from this fix.
        position = nil
        prediction = nil
        driftSince = nil
        if let v = velocity { velocity = (v.east / ratio, v.north / ratio) }
        steadyByVelocity = 0
        steadyByPosition = 0
        velocityPath = 0
        positionPath = 0
        speedSinceReference = 0
    }

    private mutating func courseMissed() {
        courseAgreements = 0
        courseMisses += 1
        if courseMisses >= 2 { courseRefuted = true }
    }

    static func == (a: DeadReckoning, b: DeadReckoning) -> Bool {
        a.position == b.position && a.time == b.time && a.velocity?.east == b.velocity?.east
            && a.velocity?.north == b.velocity?.north && a.driftSince == b.driftSince && a.believed == b.believed
            && a.velocityPath == b.velocityPath && a.positionPath == b.positionPath && a.lastSeen == b.lastSeen
            && a.velocityAt == b.velocityAt && a.courseMisses == b.courseMisses
            && a.courseAgreements == b.courseAgreements && a.courseRefuted == b.courseRefuted
            && a.stretch?.start == b.stretch?.start && a.unitWindow?.start == b.unitWindow?.start
            && a.unitSeen?.unit == b.unitSeen?.unit && a.unitSeen?.since == b.unitSeen?.since
            && a.steadyByVelocity == b.steadyByVelocity
            && a.steadyByPosition == b.steadyByPosition && a.speedRefuted == b.speedRefuted
            && a.speedScale == b.speedScale
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(position)
        hasher.combine(time)
        hasher.combine(believed)
    }
}

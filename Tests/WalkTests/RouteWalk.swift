import Foundation
import Positioning
import TourModel

@testable import Walk
@testable import WalkRuntime

/// A tour laid along a route of a given shape, and a walker who follows that route while a
/// receiver reports it with the faults real receivers have: noise, a bad first fix, multipath
/// bursts, a slowly building bias (an urban canyon), a sparse or fast rate, a clock that steps.
///
/// Geometry is planar in metres around (45.0, 9.0). Points are placed by their distance along the
/// route, so each point's true pass is known: a point is "there" when the walker, on that pass,
/// comes within its radius. That is what the checks compare triggers with.
struct RouteWalk {
    struct Point {
        /// Metres along the route.
        var along: Double
        var radius: Double
        /// Metres to the left of the route (a point beside the street).
        var aside = 0.0
    }

    struct Drift {
        /// Seconds into the walk when the bias starts building.
        var start: Double
        var build: Double = 60
        var hold: Double = 20
        /// Seconds the bias takes to go (nil: as long as it took to build).
        var decay: Double?
        /// The bias at its height, east and north metres.
        var east: Double
        var north: Double = 0
    }

    struct Receiver {
        var hz = 1.0
        var sigma = 3.0
        var error: Double? = 5
        var reportsVelocity = true
        /// Degrees added to every course reported (a receiver whose course is reversed: 180).
        var courseOffset = 0.0
        /// Replaces the first fix with one this many metres east.
        var badFirstFix: Double?
        /// Seconds into the walk of multipath bursts (each `burstLength` fixes, 300–500 m off).
        var bursts: [Double] = []
        var burstLength = 4
        var drift: Drift?
        /// Seconds into the walk at which the receiver's clock steps back by `clockStepBack` s.
        var clockStepAt: Double?
        var clockStepBack = 30.0
        /// Every fix is sent twice with the same time (a receiver repeating its epoch).
        var duplicates = false
        /// Seconds into the walk of one fix stamped an hour late (a wild time, the next ones right).
        var wildStampAt: Double?
        /// How long the wild stamps last from `wildStampAt` (every fix in it an hour late): one
        /// fix's interval when nil.
        var wildStampLength: Double?
        /// A gap without fixes: from, seconds long (a tunnel, a museum).
        var gap: (at: Double, length: Double)?
        var seed: UInt64 = 1
    }

    let name: String
    let route: [(x: Double, y: Double)]
    let drawn: Bool
    let points: [Point]
    let tour: PlayableTour
    /// Where the walker really was, one sample per fix.
    let truth: [(time: Date, x: Double, y: Double, along: Double)]
    private(set) var fixes: [Fix]
    let noiseBound: Double
    let drift: Drift?
    let start: Date

    /// The receiver's bias (metres) at `time`.
    func bias(at time: Date) -> Double {
        guard let drift else { return 0 }
        let f = Self.driftFraction(time.timeIntervalSince(start), drift)
        return f * (drift.east * drift.east + drift.north * drift.north).squareRoot()
    }

    static let origin = RandomWalk.origin

    static func coordinate(_ x: Double, _ y: Double) -> Coordinate { RandomWalk.coordinate(x, y) }

    /// - Parameters:
    ///   - route: the route's vertices in metres; the walker follows it from its start to its end.
    ///   - drawn: whether the tour carries the route (else the polyline through its points stands in).
    ///   - startAt: metres along the route where the walker starts (before: standing still there).
    ///   - wait: seconds the walker stands at the start before walking.
    init(
        _ name: String, route: [(x: Double, y: Double)], drawn: Bool = true, points: [Point], speed: Double = 1.4,
        wait: Double = 0, tail: Double = 30, receiver: Receiver = Receiver()
    ) {
        self.name = name
        self.route = route
        self.drawn = drawn
        self.points = points
        let lengths = zip(route, route.dropFirst()).map { RandomWalk.distance($0, $1) }
        let total = lengths.reduce(0, +)
        let playable = points.enumerated().map { i, p -> PlayablePoint in
            let (x, y) = Self.position(route, at: p.along, aside: p.aside)
            return PlayablePoint(
                id: "p\(i + 1)", order: i + 1, coordinate: Self.coordinate(x, y),
                triggerRadiusMeters: p.radius, title: "Point \(i + 1)",
                audio: URL(fileURLWithPath: "/narration/p\(i + 1).mp3"))
        }
        tour = PlayableTour(
            id: name, slug: name, language: "en", title: name, points: playable,
            route: drawn ? route.map { Self.coordinate($0.x, $0.y) } : [])

        var rng = SplitMix64(seed: receiver.seed)
        let start = Date(timeIntervalSince1970: 1_776_500_000)
        let duration = wait + total / speed + tail
        let step = 1 / receiver.hz
        var truth: [(Date, Double, Double, Double)] = []
        var fixes: [Fix] = []
        var clockShift = 0.0
        var k = 0
        while Double(k) * step <= duration {
            let t = Double(k) * step
            k += 1
            let along = min(total, max(0, t - wait) * speed)
            let (x, y) = Self.position(route, at: along)
            let time = start.addingTimeInterval(t)
            truth.append((time, x, y, along))
            var nx = RandomWalk.gaussian(&rng) * receiver.sigma, ny = RandomWalk.gaussian(&rng) * receiver.sigma
            let magnitude = (nx * nx + ny * ny).squareRoot()
            if magnitude > 3 * receiver.sigma, magnitude > 0 {
                nx *= 3 * receiver.sigma / magnitude; ny *= 3 * receiver.sigma / magnitude
            }
            var fx = x + nx, fy = y + ny
            if let d = receiver.drift {
                let f = Self.driftFraction(t, d)
                fx += d.east * f
                fy += d.north * f
            }
            if receiver.bursts.contains(where: { t >= $0 && t < $0 + Double(receiver.burstLength) * step }) {
                fx += 300 + 200 * Double(k % 3) / 2
                fy += 150
            }
            if k == 1, let off = receiver.badFirstFix { fx += off }
            if let at = receiver.clockStepAt, t >= at { clockShift = -receiver.clockStepBack }
            // The receiver's velocity: the truth's, with a little noise (Doppler does not drift).
            var speedOut: Double?, track: Double?
            if receiver.reportsVelocity {
                let moving = t >= wait && along < total
                let (ax, ay) = Self.position(route, at: min(total, along + 1))
                let heading = atan2(ax - x, ay - y) * 180 / .pi
                speedOut =
                    moving ? max(0, speed + RandomWalk.gaussian(&rng) * 0.1) : abs(RandomWalk.gaussian(&rng)) * 0.05
                track = ((heading + receiver.courseOffset + RandomWalk.gaussian(&rng) * 4) + 720)
                    .truncatingRemainder(dividingBy: 360)
            }
            if let gap = receiver.gap, t >= gap.at, t < gap.at + gap.length { continue }
            let wild = receiver.wildStampAt.map { t >= $0 && t < $0 + (receiver.wildStampLength ?? step) } ?? false
            let fix = Fix(
                time: time.addingTimeInterval(clockShift + (wild ? 3600 : 0)), coordinate: Self.coordinate(fx, fy),
                mode: .threeD, horizontalError: receiver.error, speed: speedOut, track: track)
            fixes.append(fix)
            if receiver.duplicates { fixes.append(fix) }
        }
        self.truth = truth
        self.fixes = fixes
        noiseBound = 3 * receiver.sigma
        drift = receiver.drift
        self.start = start
    }

    /// The same walk with each fix's course replaced (a receiver whose course is frozen).
    func withCourse(_ course: (Fix) -> Double?) -> RouteWalk {
        withVelocity { k in (fixes[k].speed, course(fixes[k])) }
    }

    /// The same walk with each fix's speed and course replaced, by the fix's index (a receiver
    /// whose velocity lags its positions).
    func withVelocity(_ velocity: (Int) -> (speed: Double?, track: Double?)) -> RouteWalk {
        var copy = self
        copy.fixes = fixes.enumerated().map { k, fix in
            var changed = fix
            (changed.speed, changed.track) = velocity(k)
            return changed
        }
        return copy
    }

    static func driftFraction(_ t: Double, _ d: Drift) -> Double {
        let s = t - d.start
        if s < 0 { return 0 }
        if s < d.build { return s / d.build }
        if s < d.build + d.hold { return 1 }
        let decay = d.decay ?? d.build
        if s < d.build + d.hold + decay { return 1 - (s - d.build - d.hold) / decay }
        return 0
    }

    static func position(_ path: [(x: Double, y: Double)], at s: Double, aside: Double = 0) -> (Double, Double) {
        var rest = s
        for (a, b) in zip(path, path.dropFirst()) {
            let d = RandomWalk.distance(a, b)
            if rest <= d, d > 0 {
                let ux = (b.x - a.x) / d, uy = (b.y - a.y) / d
                return (a.x + ux * rest - uy * aside, a.y + uy * rest + ux * aside)
            }
            rest -= d
        }
        return (path[path.count - 1].x, path[path.count - 1].y)
    }

    // MARK: - Judging a run

    struct Verdict: CustomStringConvertible {
        var name: String
        /// Per point: seconds from the walker being there (within the radius, on the right pass) to
        /// the trigger; nil when it never triggered.
        var delays: [Double?]
        /// Points triggered before the walker was within radius + noise of them on the right pass.
        var early: [Int]
        var order: [Int]
        /// How each trigger came about, in the order of `order`.
        var types: [TriggerType] = []

        var description: String {
            "\(name): delays \(delays.map { $0.map { String(format: "%.1f", $0) } ?? "-" }) early \(early) order \(order) types \(types.map(\.rawValue))"
        }
    }

    /// When the walker, on point `i`'s pass, first came within `reach` of it. Its pass is the first
    /// one through it after the point before it (rule 10): a loop's meeting point at the end, a
    /// crossing on its second pass, a corner the route grazes just before it on the way there.
    func arrival(_ i: Int, within reach: Double) -> Date? {
        let p = points[i]
        let (px, py) = Self.position(route, at: p.along, aside: p.aside)
        // Radii may overlap: the walker can be inside this point's radius before reaching the
        // previous point's centre, so the pass may begin where the previous one's radius begins
        // (less the fixes' noise, by which the previous one may trigger before it).
        let after = i > 0 ? points[i - 1].along - points[i - 1].radius - noiseBound - 1 : -Double.infinity
        return truth.first { s in
            s.along >= after && s.along <= p.along + p.radius + reach + 5
                && RandomWalk.distance((s.x, s.y), (px, py)) <= reach
        }?.time
    }

    /// - Parameter biasCounts: a bias along the way the walker goes cannot be told from walking on
    ///   (it moves a trigger by up to the bias); true counts the bias at the trigger as error.
    /// - Parameter report: given the preview's report of the run.
    func judge(
        policy: WalkPolicy = WalkPolicy(), biasCounts: Bool = false, report: (PreviewReport) -> Void = { _ in }
    ) -> Verdict {
        var triggers: [(Date, PointTrigger)] = []
        let narrations = Dictionary(
            uniqueKeysWithValues: tour.points.map { ($0.id, WalkSimulation.Narration.seconds(5)) })
        let preview = WalkSimulation(tour: tour, policy: policy, narrations: narrations).run(fixes: fixes) {
            _, time, effects in
            for case .triggered(let t) in effects { triggers.append((time, t)) }
        }
        report(preview)
        var delays = [Double?](repeating: nil, count: points.count)
        var early: [Int] = []
        for (time, t) in triggers {
            let i = t.index
            let there = arrival(i, within: points[i].radius)
            if let there { delays[i] = time.timeIntervalSince(there) }
            let close = arrival(i, within: points[i].radius + noiseBound + 1 + (biasCounts ? bias(at: time) : 0))
            if close == nil || time < close! { early.append(i) }
        }
        return Verdict(
            name: name, delays: delays, early: early, order: triggers.map(\.1.index), types: triggers.map(\.1.type))
    }
}

/// The shapes curators publish, each walked from start to end.
enum RouteShapes {
    /// A loop: a 200 × 150 m block, starting and ending at the meeting point (0, 0).
    static let loop: [(x: Double, y: Double)] = [(0, 0), (200, 0), (200, 150), (0, 150), (0, 0)]

    /// A figure of eight: out along a diagonal, round, and back across it at (100, 100).
    static let eight: [(x: Double, y: Double)] = [(0, 0), (200, 200), (200, 0), (0, 200), (0, 20)]

    /// Down one street and back up its parallel, 60 m apart (a U).
    static let parallel: [(x: Double, y: Double)] = [(0, 0), (0, 400), (60, 400), (60, 0)]

    /// Up one street, round a block, and up its parallel 60 m east: the same direction twice.
    static let comb: [(x: Double, y: Double)] = [(0, 0), (0, 300), (200, 300), (200, 0), (60, 0), (60, 300)]

    /// A straight street with a bend.
    static let street: [(x: Double, y: Double)] = [(0, 0), (0, 300), (250, 300)]

    static func along(_ path: [(x: Double, y: Double)], to target: (x: Double, y: Double), pass: Int = 0) -> Double {
        // The distance along `path` of its `pass`-th vertex equal to `target`.
        var s = 0.0, seen = 0
        for (a, b) in zip(path, path.dropFirst()) {
            if a == target { if seen == pass { return s }; seen += 1 }
            s += RandomWalk.distance(a, b)
        }
        return s
    }
}

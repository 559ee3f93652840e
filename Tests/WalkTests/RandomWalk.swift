import Foundation
import Positioning
import TourModel

@testable import Walk
@testable import WalkRuntime

/// A deterministic random tour and a noisy recorded walk through it, for the property tests.
///
/// Geometry is planar in metres around (45.0, 9.0); a kilometre or two is small enough for the
/// flat approximation, and every check uses the same geodesic distance the core uses.
struct RandomWalk {
    struct Options {
        var points = 4
        var seed: UInt64 = 1
        /// Gaussian noise per fix (metres, 1 sigma); each fix is off by at most 3 sigma, and says so.
        var sigma = 3.0
        /// When true the walker passes within a third of each radius of its centre.
        var passThrough = false
        /// Probability that a fix is a wild outlier 200–800 m away.
        var outlierRate = 0.01
    }

    let tour: PlayableTour
    /// Where the walker really was, one sample a second.
    let truth: [(time: Date, position: Coordinate)]
    let fixes: [Fix]
    let narrations: [String: WalkSimulation.Narration]
    /// The largest distance between a fix that is not an outlier and the true position.
    let noiseBound: Double

    static let origin = Coordinate(latitude: 45.0, longitude: 9.0)
    static let metresPerDegreeLat = 111_132.95
    static let metresPerDegreeLng = 78_846.8

    static func coordinate(_ x: Double, _ y: Double) -> Coordinate {
        Coordinate(
            latitude: origin.latitude + y / metresPerDegreeLat, longitude: origin.longitude + x / metresPerDegreeLng)
    }

    init(_ options: Options) {
        var rng = SplitMix64(seed: options.seed)
        // Points: each 120–400 m on from the last, heading roughly away from the start, and far
        // enough from every earlier point and leg that one never triggers from another's path.
        // The walk starts 117 m before the first point; `nodes` is the route so far.
        let startNode = (x: -100.0, y: -60.0)
        var centres: [(x: Double, y: Double)] = [(0, 0)]
        var radii: [Double] = [Double.random(in: 20...60, using: &rng)]
        var nodes = [startNode, (x: 0.0, y: 0.0)]
        var heading = Double.random(in: 0..<(2 * .pi), using: &rng)
        for _ in 1..<max(1, options.points) {
            let last = nodes[nodes.count - 1]
            var chosen: (point: (x: Double, y: Double), radius: Double, turn: Double)?
            for _ in 0..<50 {
                let turn = Double.random(in: -0.9...0.9, using: &rng)
                let length = Double.random(in: 120...400, using: &rng)
                let r = Double.random(in: 20...60, using: &rng)
                let candidate = (x: last.x + cos(heading + turn) * length, y: last.y + sin(heading + turn) * length)
                let farFromPoints =
                    zip(centres, radii).allSatisfy { c, cr in Self.distance(candidate, c) > cr + r + 60 }
                    && Self.distance(candidate, startNode) > r + 60
                let earlierLegsClear = nodes.indices.dropLast(2).allSatisfy { i in
                    Self.segmentDistance(candidate, nodes[i], nodes[i + 1]) > r + 40
                }
                let newLegClear = centres.indices.dropLast().allSatisfy { i in
                    Self.segmentDistance(centres[i], last, candidate) > radii[i] + 40
                }
                if farFromPoints && earlierLegsClear && newLegClear {
                    chosen = (candidate, r, turn)
                    break
                }
            }
            // Never found a clear spot (a spiral into itself): go straight on, far.
            let pick = chosen ?? ((x: last.x + cos(heading) * 2000, y: last.y + sin(heading) * 2000), 30, 0)
            heading += pick.turn
            centres.append(pick.point)
            radii.append(pick.radius)
            nodes.append(pick.point)
        }
        var narrations: [String: WalkSimulation.Narration] = [:]
        let points = centres.indices.map { i -> PlayablePoint in
            let id = "p\(i + 1)"
            let kind = Int.random(in: 0..<10, using: &rng)
            let hasAudio = kind != 0
            if kind == 1 {
                narrations[id] = .unplayable("not an MP3")
            } else if hasAudio {
                narrations[id] = .seconds(Double.random(in: 1...300, using: &rng))
            }
            return PlayablePoint(
                id: id, order: (i + 1) * 10, coordinate: Self.coordinate(centres[i].x, centres[i].y),
                triggerRadiusMeters: radii[i], title: "Point \(i + 1)",
                audio: hasAudio ? URL(fileURLWithPath: "/narration/\(id).mp3") : nil)
        }
        tour = PlayableTour(id: "random", slug: "random", language: "en", title: "Random", points: points)
        self.narrations = narrations

        // The walk: through a waypoint beside each point (inside a third of the radius when
        // passing through, anywhere up to twice the radius otherwise), then 60 m on.
        var waypoints: [(x: Double, y: Double)] = [startNode]
        for (c, r) in zip(centres, radii) {
            let reach = options.passThrough ? r / 3 : 2 * r
            let a = Double.random(in: 0..<(2 * .pi), using: &rng)
            let d = Double.random(in: 0...reach, using: &rng)
            waypoints.append((c.x + cos(a) * d, c.y + sin(a) * d))
        }
        if let end = waypoints.last { waypoints.append((end.x + cos(heading) * 60, end.y + sin(heading) * 60)) }

        let speed = Double.random(in: 1.0...1.6, using: &rng)
        let start = Date(timeIntervalSince1970: 1_776_500_000)
        var truth: [(Date, Coordinate)] = []
        var fixes: [Fix] = []
        let sigma = options.sigma
        let bound = 3 * sigma
        // A short outage, away from the points when the walk must pass through them all.
        let total = zip(waypoints, waypoints.dropFirst()).map { Self.distance($0, $1) }.reduce(0, +)
        let seconds = Int(total / speed) + 1
        let outageStart = Int.random(in: 0...max(0, seconds - 1), using: &rng)
        let outageLength = Int.random(in: 0...20, using: &rng)
        for second in 0...seconds {
            let position = Self.along(waypoints, Double(second) * speed)
            let coordinate = Self.coordinate(position.x, position.y)
            let time = start.addingTimeInterval(Double(second))
            truth.append((time, coordinate))
            let nearPoint = zip(centres, radii).contains { Self.distance(position, $0) < $1 + 30 }
            if second >= outageStart, second < outageStart + outageLength, !(options.passThrough && nearPoint) {
                continue
            }
            var nx = Self.gaussian(&rng) * sigma, ny = Self.gaussian(&rng) * sigma
            let magnitude = (nx * nx + ny * ny).squareRoot()
            if magnitude > bound, magnitude > 0 { nx *= bound / magnitude; ny *= bound / magnitude }
            var fixPosition = (x: position.x + nx, y: position.y + ny)
            if second > 3, Double.random(in: 0..<1, using: &rng) < options.outlierRate {
                let a = Double.random(in: 0..<(2 * .pi), using: &rng)
                let d = Double.random(in: 200...800, using: &rng)
                fixPosition = (position.x + cos(a) * d, position.y + sin(a) * d)
            }
            fixes.append(
                Fix(
                    time: time, coordinate: Self.coordinate(fixPosition.x, fixPosition.y), mode: .threeD,
                    horizontalError: max(bound, 2)))
        }
        self.truth = truth
        self.fixes = fixes
        self.noiseBound = max(bound, 2)
    }

    static func distance(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
    }

    static func segmentDistance(_ p: (x: Double, y: Double), _ a: (x: Double, y: Double), _ b: (x: Double, y: Double))
        -> Double
    {
        let dx = b.x - a.x, dy = b.y - a.y
        let len2 = dx * dx + dy * dy
        guard len2 > 0 else { return distance(p, a) }
        let t = max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2))
        return distance(p, (a.x + t * dx, a.y + t * dy))
    }

    static func along(_ path: [(x: Double, y: Double)], _ s: Double) -> (x: Double, y: Double) {
        var rest = s
        for (a, b) in zip(path, path.dropFirst()) {
            let d = distance(a, b)
            if rest <= d, d > 0 { return (a.x + (b.x - a.x) * rest / d, a.y + (b.y - a.y) * rest / d) }
            rest -= d
        }
        return path[path.count - 1]
    }

    static func gaussian(_ rng: inout SplitMix64) -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &rng)
        let u2 = Double.random(in: 0..<1, using: &rng)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}

/// A tiny seedable generator so a failing case can be replayed from its seed.
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

import TourModel

/// Vertices of a drawn route that stick out of it: a pair of numbers typed wrong or pasted from
/// another tour. A real route goes somewhere and on from there; a slip goes out and straight back
/// (a spike: the vertices either side of it lie together), or trails off at one end (a tail). Its
/// legs are long against the route's own: over `least` metres and over `legFactor` times the
/// route's median leg. A long stretch of many vertices (a summit loop, an approach from the
/// station) is a path, not a slip, and is never one. `lint` names them (`route-stray`) and `map`
/// frames the tour without them.
public enum RouteStrays {
    public static let least = 1_000.0
    public static let legFactor = 20.0
    /// A spike's neighbours lie closer together than this share of its shorter leg.
    public static let spikeNeighbours = 0.1
    /// A vertex this far outside a point's radius still stands by it (metres).
    public static let pointReach = 100.0

    public enum Shape: Sendable, Hashable {
        /// Out and back between two vertices that lie together.
        case spike
        /// The first or the last vertex, far past the rest.
        case tail
    }

    /// Each stray vertex: its index in `route`, its shape, and how far it sticks out (its shorter
    /// leg), in metres. A route of two vertices has nothing to be compared with.
    /// `points`: where the tour's points stand and their radii; a vertex a point stands by (the
    /// tip of a spur to a viewpoint, a summit) is where the walk goes, never a slip.
    public static func find(
        route: [Coordinate], points: [(coordinate: Coordinate, radius: Double)] = []
    ) -> [(index: Int, shape: Shape, metres: Double)] {
        guard route.count >= 3 else { return [] }
        func byAPoint(_ vertex: Coordinate) -> Bool {
            points.contains { $0.coordinate.distance(to: vertex) <= $0.radius + Self.pointReach }
        }
        let legs = zip(route, route.dropFirst()).map { $0.distance(to: $1) }
        let sorted = legs.sorted()
        // The route's own legs, without the ones a candidate stands on (in a short route they
        // would be most of them); a route with no others has the gap the candidate bridges. Their
        // median is read from the legs sorted once, stepping over the excluded ones: sorting the
        // others again for each candidate made a route with many (a receiver's track at rest,
        // going back and forth between two places) take 25 s to lint.
        func long(without excluded: [Int], otherwise gap: Double) -> Double {
            max(least, legFactor * (median(of: sorted, without: excluded.map { legs[$0] }) ?? gap))
        }
        var strays: [(index: Int, shape: Shape, metres: Double)] = []
        let last = legs.count - 1
        if legs[0] > long(without: [0], otherwise: legs[1]), !byAPoint(route[0]) { strays.append((0, .tail, legs[0])) }
        // The cheap tests first; a point near the vertex (each point measured) last.
        for i in 1..<(route.count - 1) {
            let shorter = min(legs[i - 1], legs[i])
            let gap = route[i - 1].distance(to: route[i + 1])
            guard gap < spikeNeighbours * shorter, shorter > long(without: [i - 1, i], otherwise: gap),
                !byAPoint(route[i])
            else { continue }
            strays.append((i, .spike, shorter))
        }
        if legs[last] > long(without: [last], otherwise: legs[last - 1]), !byAPoint(route[route.count - 1]) {
            strays.append((route.count - 1, .tail, legs[last]))
        }
        return strays
    }

    /// The median (the upper one of an even count) of `sorted` with one copy of each of `values`
    /// (which it holds) taken out; nil when nothing is left.
    static func median(of sorted: [Double], without values: [Double]) -> Double? {
        let count = sorted.count - values.count
        guard count > 0 else { return nil }
        var removed: [Int] = []
        for value in values.sorted() {
            var at = lowerBound(of: value, in: sorted)
            if let previous = removed.last, at <= previous { at = previous + 1 }
            removed.append(at)
        }
        var j = count / 2
        for at in removed where at <= j { j += 1 }
        return sorted[j]
    }

    /// The first index of `sorted` whose value is not below `value`.
    static func lowerBound(of value: Double, in sorted: [Double]) -> Int {
        var lo = 0, hi = sorted.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if sorted[mid] < value { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}

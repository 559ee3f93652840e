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
        // The route's own legs, without the ones a candidate stands on (in a short route they
        // would be most of them); a route with no others has the gap the candidate bridges.
        func long(without excluded: Set<Int>, otherwise gap: Double) -> Double {
            let others = legs.indices.filter { !excluded.contains($0) }.map { legs[$0] }.sorted()
            let typical = others.isEmpty ? gap : others[others.count / 2]
            return max(least, legFactor * typical)
        }
        var strays: [(index: Int, shape: Shape, metres: Double)] = []
        let last = legs.count - 1
        if legs[0] > long(without: [0], otherwise: legs[1]), !byAPoint(route[0]) { strays.append((0, .tail, legs[0])) }
        for i in 1..<(route.count - 1) where !byAPoint(route[i]) {
            let shorter = min(legs[i - 1], legs[i])
            let gap = route[i - 1].distance(to: route[i + 1])
            guard gap < spikeNeighbours * shorter, shorter > long(without: [i - 1, i], otherwise: gap) else { continue }
            strays.append((i, .spike, shorter))
        }
        if legs[last] > long(without: [last], otherwise: legs[last - 1]), !byAPoint(route[route.count - 1]) {
            strays.append((route.count - 1, .tail, legs[last]))
        }
        return strays
    }
}

import TourModel

/// Vertices of a drawn route that lie far out from the rest of the tour: a typo in one pair of
/// numbers, or a vertex pasted from another tour. A walking route reaches a little past its
/// points, never many times their reach: a vertex farther from the tour's first point than
/// `reachFactor` times its farthest point, and than `least` metres, is one. Every point is then at
/// least twice the tour's reach from it. `lint` names them (`route-stray`) and `map` frames the
/// tour without them.
public enum RouteStrays {
    public static let reachFactor = 3.0
    public static let least = 5_000.0

    /// Each stray vertex's index in `route` and its distance to the nearest point, in metres.
    /// A tour without points has no reach to compare with: nothing is called stray.
    public static func find(route: [Coordinate], points: [Coordinate]) -> [(index: Int, metres: Double)] {
        guard let first = points.first else { return [] }
        let reach = points.map { first.distance(to: $0) }.max() ?? 0
        let limit = max(least, reachFactor * reach)
        return route.indices.compactMap { index in
            guard first.distance(to: route[index]) > limit else { return nil }
            let nearest = points.map { route[index].distance(to: $0) }.min() ?? 0
            return (index, nearest)
        }
    }
}

import Foundation
import TourModel
import Walk
import WalkRuntime

/// Which points' trigger radii overlap: pairs closer than their radii added up, each pair once.
///
/// Comparing every pair costs n² geodesic distances: a 10,000-point tour took half a minute. The
/// points go into a grid of cells at least as wide as the widest possible reach (twice the
/// largest radius) instead, so each point is compared only with those in its own and the eight
/// neighbouring cells. Cells are bounds in degrees that hold on the ellipsoid: a degree of
/// latitude is at least 110,574 m; a degree of longitude shrinks towards the poles, so the
/// columns are as wide as the tour's highest latitude needs (near a pole they span the globe and
/// the grid degenerates into latitude bands, still correct). Columns wrap round the antimeridian.
/// The distances reported are the same geodesic distances as before.
public struct RadiusOverlaps: Sendable {
    public struct Neighbour: Sendable, Hashable {
        /// Index of the later point.
        public var index: Int
        public var distance: Double
    }

    /// For each point, the later points (higher index) whose radius overlaps its own, in order.
    public let later: [[Neighbour]]

    public init(coordinates: [Coordinate], radii: [Double]) {
        precondition(coordinates.count == radii.count)
        var later = [[Neighbour]](repeating: [], count: coordinates.count)
        guard let widest = radii.max(), widest > 0 else {
            self.later = later
            return
        }
        // 1% more than the reach covers the sphere-versus-ellipsoid difference in the bounds.
        let cell = 2 * widest * 1.01
        let rowHeight = cell / 110_574
        let highest = min(89.999, coordinates.map { abs($0.latitude) }.max() ?? 0)
        let earthRadius = 6_371_008.8
        // On a sphere, two points within d of each other, both at most `highest` from the equator,
        // differ in longitude by at most 2·asin(sin(d / 2R) / cos(highest)).
        let ratio = sin(cell / (2 * earthRadius)) / cos(highest * .pi / 180)
        let columnSpan = ratio >= 1 ? 360 : 2 * asin(ratio) * 180 / .pi
        let columns = max(1, Int((360 / columnSpan).rounded(.down)))
        let columnWidth = 360 / Double(columns)

        func row(_ c: Coordinate) -> Int { Int(((c.latitude + 90) / rowHeight).rounded(.down)) }
        func column(_ c: Coordinate) -> Int {
            min(columns - 1, Int(((c.longitude + 180) / columnWidth).rounded(.down)))
        }
        func key(_ row: Int, _ column: Int) -> Int { row * columns + column }

        var cells: [Int: [Int]] = [:]
        for (i, c) in coordinates.enumerated() { cells[key(row(c), column(c)), default: []].append(i) }

        for (i, a) in coordinates.enumerated() {
            let r = row(a), c = column(a)
            var neighbourColumns = Set([c, (c + 1) % columns, (c - 1 + columns) % columns])
            if columns == 1 { neighbourColumns = [0] }
            var found: [Neighbour] = []
            for dr in -1...1 {
                for nc in neighbourColumns {
                    for j in cells[key(r + dr, nc)] ?? [] where j > i {
                        let reach = radii[i] + radii[j]
                        // A cheap bound first: the latitude difference alone may rule the pair out.
                        if abs(a.latitude - coordinates[j].latitude) * 110_574 > reach * 1.01 { continue }
                        let d = a.distance(to: coordinates[j])
                        if d < reach { found.append(Neighbour(index: j, distance: d)) }
                    }
                }
            }
            later[i] = found.sorted { $0.index < $1.index }
        }
        self.later = later
    }
}

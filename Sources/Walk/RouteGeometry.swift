import Foundation
import TourModel

/// Distances along a route polyline, for lint (is the order the route's order? how long is the
/// walk to the next point?) and the map.
///
/// Each segment is treated as flat around its start: a tour's segments are tens to hundreds of
/// metres, where the flat error is far below a trigger radius.
public struct RouteGeometry: Sendable, Hashable {
    public let vertices: [Coordinate]
    /// Distance along the route to each vertex, metres.
    public let cumulative: [Double]

    public init(_ vertices: [Coordinate]) {
        self.vertices = vertices
        var sums: [Double] = [0]
        for (a, b) in zip(vertices, vertices.dropFirst()) { sums.append(sums[sums.count - 1] + a.distance(to: b)) }
        cumulative = sums
    }

    public var length: Double { cumulative.last ?? 0 }

    /// Where `point` meets the route: metres along it, and metres from it.
    public func project(_ point: Coordinate) -> (along: Double, offset: Double) {
        guard vertices.count > 1 else {
            return (0, vertices.first.map { $0.distance(to: point) } ?? .infinity)
        }
        var best = (along: 0.0, offset: Double.infinity)
        for i in 0..<(vertices.count - 1) {
            let a = vertices[i], b = vertices[i + 1]
            let (bx, by) = Self.local(b, around: a)
            let (px, py) = Self.local(point, around: a)
            let length2 = bx * bx + by * by
            let t = length2 > 0 ? max(0, min(1, (px * bx + py * by) / length2)) : 0
            let dx = px - t * bx, dy = py - t * by
            let offset = (dx * dx + dy * dy).squareRoot()
            if offset < best.offset {
                best = (cumulative[i] + t * (cumulative[i + 1] - cumulative[i]), offset)
            }
        }
        return best
    }

    /// East and north metres of `c` from `origin` (equirectangular).
    static func local(_ c: Coordinate, around origin: Coordinate) -> (Double, Double) {
        let r = Geodesy.meanRadius
        let x = (c.longitude - origin.longitude) * .pi / 180 * r * cos(origin.latitude * .pi / 180)
        let y = (c.latitude - origin.latitude) * .pi / 180 * r
        return (x, y)
    }
}

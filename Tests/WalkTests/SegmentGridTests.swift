import Foundation
import PropertyBased
import Testing
import TourModel

@testable import Walk

/// A long route finds the first pass near a place through its grid of segments (`SegmentGrid`):
/// the same answers as a scan of every segment, for routes of any shape and places on, near and far
/// from them.
@Suite struct SegmentGridTests {
    /// The scan the grid stands in for: the first segment at or after `low` within `tolerance`, and
    /// the nearest spot of that pass.
    static func scan(_ route: TourRoute, _ c: Coordinate, within tolerance: Double, from low: Double)
        -> TourRoute.Projection?
    {
        let lo = max(0, min(low, route.length)), hi = route.length
        var best: TourRoute.Projection?
        for i in route.segment(at: lo)...route.segment(at: hi) {
            let p = route.project(c, onSegment: i, low: lo, high: hi)
            if p.offset <= tolerance {
                if best == nil || p.offset < best!.offset { best = p }
            } else if best != nil {
                break
            }
        }
        return best
    }

    /// A wandering route of `count` vertices `step` metres apart (turning at random, so it crosses
    /// itself and comes back), from near `origin`.
    static func route(count: Int, step: Double, origin: Coordinate, seed: Int) -> [Coordinate] {
        var generator = SplitMix64(seed: UInt64(seed))
        var heading = 0.0
        var c = origin
        var vertices = [c]
        for _ in 1..<count {
            heading += Double.random(in: -50...50, using: &generator)
            // Now and then a long straight leg (a points route's line across a park).
            let leg = Int.random(in: 0..<40, using: &generator) == 0 ? step * 150 : step
            c = Geodesy.destination(from: c, distance: leg, bearing: heading)
            vertices.append(c)
        }
        return vertices
    }

    @Test("first passes through the grid are those of a scan of every segment")
    func firstPassesAreThoseOfAScan() async {
        await propertyCheck(
            count: 30, input: Gen.int(in: 300...2000), Gen.double(in: 1...40), Gen.int(in: 0...1_000_000),
            Gen.int(in: 0...3)
        ) { count, step, seed, place in
            let origins = [
                Coordinate(latitude: 44.49, longitude: 11.34), Coordinate(latitude: -33.9, longitude: 151.2),
                Coordinate(latitude: 69.6, longitude: 18.9), Coordinate(latitude: 0.01, longitude: -179.99),
            ]
            let vertices = Self.route(count: count, step: step, origin: origins[place], seed: seed)
            let route = TourRoute(route: vertices, points: [])
            var generator = SplitMix64(seed: UInt64(seed) &+ 7)
            for _ in 0..<200 {
                // Near a vertex (on the route, beside it, or a street away), or anywhere around.
                let vertex = vertices[Int.random(in: 0..<vertices.count, using: &generator)]
                let off = Double.random(in: 0...(Bool.random(using: &generator) ? 80 : 3000), using: &generator)
                let c = Geodesy.destination(
                    from: vertex, distance: off, bearing: Double.random(in: 0..<360, using: &generator))
                let tolerance = Double.random(in: 1...150, using: &generator)
                let low = Double.random(in: 0...route.length, using: &generator)
                let expected = Self.scan(route, c, within: tolerance, from: low)
                let found = route.firstPass(near: c, within: tolerance, from: low)
                #expect(found == expected, "\(c) within \(tolerance) m from \(low) m")
            }
        }
    }
}

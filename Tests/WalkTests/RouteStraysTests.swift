import Foundation
import PropertyBased
import Testing
import TourModel

@testable import Curation

/// A drawn route's stray vertices (`RouteStrays`), found with the route's legs sorted once: the
/// same strays as measuring every candidate against the others sorted afresh, which made a route
/// going back and forth between two places (a receiver's track at rest) take 25 s to lint.
@Suite struct RouteStraysTests {
    /// The rule as it was first written: each candidate against the other legs, sorted for it.
    static func reference(
        route: [Coordinate], points: [(coordinate: Coordinate, radius: Double)]
    ) -> [(index: Int, shape: RouteStrays.Shape, metres: Double)] {
        guard route.count >= 3 else { return [] }
        func byAPoint(_ vertex: Coordinate) -> Bool {
            points.contains { $0.coordinate.distance(to: vertex) <= $0.radius + RouteStrays.pointReach }
        }
        let legs = zip(route, route.dropFirst()).map { $0.distance(to: $1) }
        func long(without excluded: Set<Int>, otherwise gap: Double) -> Double {
            let others = legs.indices.filter { !excluded.contains($0) }.map { legs[$0] }.sorted()
            let typical = others.isEmpty ? gap : others[others.count / 2]
            return max(RouteStrays.least, RouteStrays.legFactor * typical)
        }
        var strays: [(index: Int, shape: RouteStrays.Shape, metres: Double)] = []
        let last = legs.count - 1
        if legs[0] > long(without: [0], otherwise: legs[1]), !byAPoint(route[0]) { strays.append((0, .tail, legs[0])) }
        for i in 1..<(route.count - 1) where !byAPoint(route[i]) {
            let shorter = min(legs[i - 1], legs[i])
            let gap = route[i - 1].distance(to: route[i + 1])
            guard gap < RouteStrays.spikeNeighbours * shorter, shorter > long(without: [i - 1, i], otherwise: gap)
            else { continue }
            strays.append((i, .spike, shorter))
        }
        if legs[last] > long(without: [last], otherwise: legs[last - 1]), !byAPoint(route[route.count - 1]) {
            strays.append((route.count - 1, .tail, legs[last]))
        }
        return strays
    }

    /// A route of `count` vertices: steps of a few metres to a few hundred, stretches going back
    /// and forth between two places (equal legs), spikes kilometres out and back, and tails.
    static func route(count: Int, seed: Int) -> [Coordinate] {
        var generator = SplitMix64(seed: UInt64(seed))
        var c = Coordinate(latitude: 44.49, longitude: 11.34)
        var vertices: [Coordinate] = []
        if Bool.random(using: &generator) {
            vertices.append(Geodesy.destination(from: c, distance: 30_000, bearing: 10))
        }
        while vertices.count < count {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0:
                // Out to a slip and straight back.
                vertices.append(c)
                vertices.append(
                    Geodesy.destination(
                        from: c, distance: Double.random(in: 500...50_000, using: &generator),
                        bearing: Double.random(in: 0..<360, using: &generator)))
            case 1:
                // At rest: back and forth between two places, the same leg again and again.
                let other = Geodesy.destination(
                    from: c, distance: Double(Int.random(in: 1...4, using: &generator)), bearing: 90)
                for k in 0..<Int.random(in: 2...30, using: &generator) { vertices.append(k % 2 == 0 ? c : other) }
            default:
                vertices.append(c)
                let step = [2.0, 10, 40, 300][Int.random(in: 0..<4, using: &generator)]
                c = Geodesy.destination(from: c, distance: step, bearing: Double.random(in: 0..<360, using: &generator))
            }
        }
        if Bool.random(using: &generator) {
            vertices.append(Geodesy.destination(from: c, distance: 40_000, bearing: 200))
        }
        return vertices
    }

    @Test("the median of the legs sorted once, some taken out, is that of the others sorted afresh")
    func theMedianWithoutSomeLegsIsThatOfTheOthers() async {
        await propertyCheck(count: 500, input: Gen.int(in: 1...40), Gen.int(in: 0...1_000_000)) { count, seed in
            var generator = SplitMix64(seed: UInt64(seed))
            // Few distinct lengths, so that many are equal (a track going back and forth).
            let legs = (0..<count).map { _ in Double(Int.random(in: 1...6, using: &generator)) }
            let first = Int.random(in: 0..<count, using: &generator)
            let second = Int.random(in: 0..<count, using: &generator)
            for excluded in [[first], first == second ? [first] : [first, second]] {
                let others = legs.indices.filter { !excluded.contains($0) }.map { legs[$0] }.sorted()
                let median = RouteStrays.median(of: legs.sorted(), without: excluded.map { legs[$0] })
                #expect(median == (others.isEmpty ? nil : others[others.count / 2]), "\(legs) without \(excluded)")
            }
        }
    }

    @Test("strays found with the legs sorted once are those of the rule as first written")
    func strayVerticesAreThoseOfTheReference() async {
        await propertyCheck(count: 80, input: Gen.int(in: 3...250), Gen.int(in: 0...1_000_000)) { count, seed in
            let route = Self.route(count: count, seed: seed)
            var generator = SplitMix64(seed: UInt64(seed) &+ 3)
            let points = (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                (coordinate: route[Int.random(in: 0..<route.count, using: &generator)], radius: 20.0)
            }
            let found = RouteStrays.find(route: route, points: points)
            let expected = Self.reference(route: route, points: points)
            #expect(found.map(\.index) == expected.map(\.index), "seed \(seed), \(route.count) vertices")
            #expect(found.map(\.shape) == expected.map(\.shape))
            #expect(found.map(\.metres) == expected.map(\.metres))
        }
    }
}

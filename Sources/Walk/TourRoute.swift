import Foundation
import TourModel

/// The tour's route as the walk core follows it: a polyline with distances along it, and each
/// point's *station*, the place along the route where the story reaches that point.
///
/// The route is the one the curator drew when it fits the points (every point within its radius
/// plus `fitTolerance` of the route, met in order); otherwise the polyline through the points in
/// order. Stations are found in order, each at or after the one before: a loop's finale, at the
/// meeting point, gets the route's end, not its start; a point the route passes twice (a figure of
/// eight) gets the pass that comes after the point before it.
///
/// Geometry is planar per segment (a frame at the segment's start, scaled by the ellipsoid's radii
/// of curvature there, `Geodesy.metresPerDegree`): segments are metres to hundreds of metres long,
/// where it stays within 0.01 % of Vincenty. Each segment's frame is computed once, so projecting a
/// fix is a few multiplications per segment.
public struct TourRoute: Sendable, Hashable {
    public enum Source: String, Sendable, Hashable, Codable {
        /// The curator's route (`route` / `routePolyline`).
        case drawn
        /// No usable route: the polyline through the points in order.
        case points
    }

    /// A point the route comes within its radius of, on one pass.
    public struct Pass: Sendable, Hashable {
        /// Metres along the route where the pass enters and leaves the radius.
        public var from: Double
        public var to: Double
        /// Metres along the route nearest the point on this pass.
        public var nearest: Double
    }

    /// Metres a drawn route may pass beyond a point's radius and still fit it.
    public static let fitTolerance = 30.0

    public let source: Source
    /// Why a drawn route was not used (nil when it was, or when the tour has none).
    public let unfitReason: String?
    public let vertices: [Coordinate]
    /// Metres along the route to each vertex.
    public let cumulative: [Double]
    /// Metres along the route to each point's station, in the tour's order.
    public let stations: [Double]
    /// Each point's distance from the route at its station.
    public let offsets: [Double]

    /// Per-segment frames: origin, metres per degree east, and the segment's end in that frame.
    private let frames: [Frame]
    /// The segments near a place, for a long route (`SegmentGrid`).
    private let grid: Grid

    /// Made from the vertices, so it adds nothing to a route's equality.
    struct Grid: Sendable, Hashable {
        let index: SegmentGrid?
        static func == (_: Grid, _: Grid) -> Bool { true }
        func hash(into hasher: inout Hasher) {}
    }

    struct Frame: Sendable, Hashable {
        var latitude: Double
        var longitude: Double
        var metresPerDegreeLatitude: Double
        var metresPerDegreeLongitude: Double
        var dx: Double
        var dy: Double
        var length2: Double
    }

    public init(tour: PlayableTour) {
        self.init(route: tour.route, points: tour.points)
    }

    public init(route drawnRoute: [Coordinate], points: [PlayablePoint]) {
        let pointPolyline = points.map(\.coordinate)
        if drawnRoute.count > 1 {
            let drawn = Self.build(drawnRoute, points: points)
            if let problem = drawn.problem {
                self.init(source: .points, unfitReason: problem, polyline: pointPolyline, points: points)
            } else {
                self.init(source: .drawn, unfitReason: nil, built: drawn)
            }
        } else {
            self.init(source: .points, unfitReason: nil, polyline: pointPolyline, points: points)
        }
    }

    private init(source: Source, unfitReason: String?, polyline: [Coordinate], points: [PlayablePoint]) {
        self.init(source: source, unfitReason: unfitReason, built: Self.build(polyline, points: points))
    }

    private init(source: Source, unfitReason: String?, built: Built) {
        self.source = source
        self.unfitReason = unfitReason
        vertices = built.vertices
        cumulative = built.cumulative
        frames = built.frames
        stations = built.stations
        offsets = built.offsets
        grid = Grid(
            index: SegmentGrid(
                vertices: built.vertices, lengths: zip(built.cumulative.dropFirst(), built.cumulative).map { $0 - $1 }))
    }

    public var length: Double { cumulative.last ?? 0 }
    public var isEmpty: Bool { vertices.isEmpty }

    // MARK: - Building

    private struct Built {
        var vertices: [Coordinate]
        var cumulative: [Double]
        var frames: [Frame]
        var stations: [Double]
        var offsets: [Double]
        var problem: String?
    }

    private static func build(_ polyline: [Coordinate], points: [PlayablePoint]) -> Built {
        var vertices: [Coordinate] = []
        for c in polyline where c.isValid && vertices.last != c { vertices.append(c) }
        var frames: [Frame] = []
        var cumulative: [Double] = vertices.isEmpty ? [] : [0]
        for (a, b) in zip(vertices, vertices.dropFirst()) {
            let scale = Geodesy.metresPerDegree(atLatitude: a.latitude)
            var dLng = b.longitude - a.longitude
            if dLng > 180 { dLng -= 360 } else if dLng < -180 { dLng += 360 }
            let dx = dLng * scale.east, dy = (b.latitude - a.latitude) * scale.north
            frames.append(
                Frame(
                    latitude: a.latitude, longitude: a.longitude, metresPerDegreeLatitude: scale.north,
                    metresPerDegreeLongitude: scale.east, dx: dx, dy: dy, length2: dx * dx + dy * dy))
            cumulative.append(cumulative[cumulative.count - 1] + (dx * dx + dy * dy).squareRoot())
        }
        var built = Built(vertices: vertices, cumulative: cumulative, frames: frames, stations: [], offsets: [])
        let route = TourRoute(unchecked: built)
        var floor = 0.0
        for (i, point) in points.enumerated() {
            let passes = route.passes(
                near: point.coordinate, radius: point.triggerRadiusMeters, from: floor, first: true)
            let station: Double, offset: Double
            if let first = passes.first {
                station = first.nearest
                offset = route.offset(of: point.coordinate, at: first.nearest)
            } else {
                let nearest = route.nearest(to: point.coordinate, from: floor, to: route.length)
                station = nearest.along
                offset = nearest.offset
                // Off the route everywhere is a misplaced point (lint says so), and its station is
                // still the nearest place after the point before. Near the route only before the
                // point before it is an order the route contradicts: the route cannot be followed.
                if built.problem == nil, offset > point.triggerRadiusMeters + fitTolerance,
                    route.nearest(to: point.coordinate, from: 0, to: floor).offset <= point.triggerRadiusMeters
                        + fitTolerance
                {
                    built.problem =
                        "the route reaches point \(i + 1) (order \(point.order)) only before the point before it"
                }
            }
            built.stations.append(station)
            built.offsets.append(offset)
            floor = station
        }
        return built
    }

    private init(unchecked built: Built) {
        source = .drawn
        unfitReason = nil
        vertices = built.vertices
        cumulative = built.cumulative
        frames = built.frames
        stations = []
        offsets = []
        grid = Grid(index: nil)
    }

    /// The coordinate `along` metres along the route.
    public func coordinate(at along: Double) -> Coordinate? {
        guard let first = vertices.first else { return nil }
        guard !frames.isEmpty else { return first }
        let a = max(0, min(along, length))
        let i = segment(at: a)
        let f = frames[i]
        let length = cumulative[i + 1] - cumulative[i]
        let t = length > 0 ? (a - cumulative[i]) / length : 0
        return Coordinate(
            latitude: f.latitude + t * f.dy / f.metresPerDegreeLatitude,
            longitude: f.longitude + t * f.dx / f.metresPerDegreeLongitude)
    }

    /// The route between two places along it, as a polyline.
    public func coordinates(from low: Double, to high: Double) -> [Coordinate] {
        guard !frames.isEmpty, high > low, let start = coordinate(at: low), let end = coordinate(at: high) else {
            return []
        }
        var result = [start]
        for i in vertices.indices where cumulative[i] > low && cumulative[i] < high { result.append(vertices[i]) }
        result.append(end)
        return result
    }

    // MARK: - Projection

    /// A place on the route: metres along it, and the distance from the projected position.
    public struct Projection: Sendable, Hashable {
        public var along: Double
        public var offset: Double
    }

    /// The segment index holding `along` (the last segment for the end).
    func segment(at along: Double) -> Int {
        guard frames.count > 1 else { return 0 }
        var lo = 0, hi = frames.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if cumulative[mid] <= along { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// Projects `c` onto segment `i`, restricted to `[low, high]` metres along the route.
    @inline(__always)
    func project(_ c: Coordinate, onSegment i: Int, low: Double, high: Double) -> Projection {
        let f = frames[i]
        var dLng = c.longitude - f.longitude
        if dLng > 180 { dLng -= 360 } else if dLng < -180 { dLng += 360 }
        let px = dLng * f.metresPerDegreeLongitude
        let py = (c.latitude - f.latitude) * f.metresPerDegreeLatitude
        let start = cumulative[i], end = cumulative[i + 1]
        let length = end - start
        var t = f.length2 > 0 ? (px * f.dx + py * f.dy) / f.length2 : 0
        let tLow = length > 0 ? (low - start) / length : 0
        let tHigh = length > 0 ? (high - start) / length : 1
        t = min(max(t, max(0, tLow)), min(1, tHigh))
        let ex = px - t * f.dx, ey = py - t * f.dy
        return Projection(along: start + t * length, offset: (ex * ex + ey * ey).squareRoot())
    }

    /// Degrees between a course over ground and segment `i`'s direction (0 to 180).
    func turn(from track: Double, onSegment i: Int) -> Double {
        let f = frames[i]
        guard f.length2 > 0 else { return 0 }
        return Geodesy.angle(between: track, and: atan2(f.dx, f.dy) * 180 / .pi)
    }

    /// The distance from `c` to the route at `along`.
    func offset(of c: Coordinate, at along: Double) -> Double {
        guard !frames.isEmpty else { return vertices.first.map { $0.distance(to: c) } ?? .infinity }
        return project(c, onSegment: segment(at: along), low: along, high: along).offset
    }

    /// The nearest place to `c` on the route between `low` and `high` metres along it.
    public func nearest(to c: Coordinate, from low: Double, to high: Double) -> Projection {
        guard !frames.isEmpty else {
            return Projection(along: 0, offset: vertices.first.map { $0.distance(to: c) } ?? .infinity)
        }
        let lo = max(0, min(low, length)), hi = max(lo, min(high, length))
        var best = Projection(along: lo, offset: .infinity)
        for i in segment(at: lo)...segment(at: hi) {
            let p = project(c, onSegment: i, low: lo, high: hi)
            if p.offset < best.offset { best = p }
        }
        return best
    }

    /// The first place at or after `low` where the route comes within `tolerance` of `c`, at the
    /// nearest spot of that pass. Nil when it never does.
    public func firstPass(
        near c: Coordinate, within tolerance: Double, from low: Double,
        to high: Double = .infinity
    ) -> Projection? {
        guard !frames.isEmpty else {
            let d = vertices.first.map { $0.distance(to: c) } ?? .infinity
            return d <= tolerance ? Projection(along: 0, offset: d) : nil
        }
        let lo = max(0, min(low, length)), hi = max(lo, min(high, length))
        let last = segment(at: hi)
        var first = segment(at: lo)
        // A long route: the first segment within reach among the few near `c`, not the first of
        // all those after `low` (the same one: the grid leaves none within reach out).
        if let candidates = grid.index?.candidates(near: c, within: tolerance) {
            guard
                let near = candidates.first(where: {
                    $0 >= first && $0 <= last && project(c, onSegment: $0, low: lo, high: hi).offset <= tolerance
                })
            else { return nil }
            first = near
        }
        var best: Projection?
        for i in first...last {
            let p = project(c, onSegment: i, low: lo, high: hi)
            if p.offset <= tolerance {
                if best == nil || p.offset < best!.offset { best = p }
            } else if best != nil {
                break  // the pass is over
            }
        }
        return best
    }

    /// Every pass of the route through the disc of `radius` around `c`, from `low` metres on.
    public func passes(near c: Coordinate, radius: Double, from low: Double = 0, first: Bool = false) -> [Pass] {
        guard !frames.isEmpty else {
            let d = vertices.first.map { $0.distance(to: c) } ?? .infinity
            return d <= radius ? [Pass(from: 0, to: 0, nearest: 0)] : []
        }
        var result: [Pass] = []
        var current: Pass?
        var currentBest = Double.infinity
        let lo = max(0, min(low, length))
        for i in segment(at: lo)..<frames.count {
            let start = max(lo, cumulative[i]), end = cumulative[i + 1]
            // Where the segment is inside the disc: solve |p - (a + t·d)| <= radius for t.
            let f = frames[i]
            var dLng = c.longitude - f.longitude
            if dLng > 180 { dLng -= 360 } else if dLng < -180 { dLng += 360 }
            let px = dLng * f.metresPerDegreeLongitude
            let py = (c.latitude - f.latitude) * f.metresPerDegreeLatitude
            let length = end - cumulative[i]
            var inside: (Double, Double)?
            if f.length2 > 0 {
                let tc = (px * f.dx + py * f.dy) / f.length2
                let ex = px - tc * f.dx, ey = py - tc * f.dy
                let d2 = ex * ex + ey * ey
                if d2 <= radius * radius {
                    let half = ((radius * radius - d2) / f.length2).squareRoot()
                    let t0 = max(0, tc - half), t1 = min(1, tc + half)
                    let a0 = cumulative[i] + t0 * length, a1 = cumulative[i] + t1 * length
                    if t0 <= t1, a1 >= start { inside = (max(a0, start), a1) }
                }
            } else if px * px + py * py <= radius * radius, end >= start {
                inside = (start, end)
            }
            if inside == nil, first, current != nil { break }
            if let (a0, a1) = inside {
                let p = project(c, onSegment: i, low: a0, high: a1)
                if var pass = current, a0 <= pass.to + 0.001 {
                    pass.to = a1
                    if p.offset < currentBest { pass.nearest = p.along; currentBest = p.offset }
                    current = pass
                } else {
                    if let pass = current {
                        result.append(pass)
                        if first { return result }
                    }
                    current = Pass(from: a0, to: a1, nearest: p.along)
                    currentBest = p.offset
                }
            }
        }
        if let pass = current { result.append(pass) }
        return result
    }
}

import Foundation
import Positioning
import TourModel

/// The way a walker went between two fixes of a sparse receiver (rule 2): a point it passes deep
/// inside was entered, wherever the two fixes fell. A cyclist at 6 m/s with a fix every 5 s
/// crosses a 20 m circle between two fixes, or lands one just inside its edge, and the point was
/// caught up only when a later one triggered, 25-80 s late.
///
/// The way is straight, unless the two fixes' courses (from 0.8 m/s) differ by more than `turn`
/// degrees: then the walker turned between them, along the first course and into the second, and
/// the way goes by where the two meet. The straight way across a corner cuts inside it (28 m at
/// 8 m/s with a fix every 10 s), and a point inside the corner the rider never entered played.
///
/// Made once per fix, in metres east and north of the first fix (`Geodesy.metresPerDegree`
/// there), and asked of each point in turn.
struct SparseWay {
    /// Degrees two fixes' courses may differ by and the way between them still be straight.
    static let turn = 30.0

    private let origin: Coordinate
    private let scale: (north: Double, east: Double)
    private let vertices: [(x: Double, y: Double)]
    /// The farthest vertex from the first fix: a point farther than that and its radius is not
    /// passed.
    private let reach: Double
    private let errors: (Double?, Double?)

    /// Nil when the way cannot be told: the courses turned right round, or meet nowhere between
    /// the fixes.
    init?(from: Fix, to: Fix) {
        origin = from.coordinate
        scale = Geodesy.metresPerDegree(atLatitude: origin.latitude)
        errors = (from.horizontalError, to.horizontalError)
        let b = Self.local(to.coordinate, origin: origin, scale: scale)
        var vertices = [(x: 0.0, y: 0.0), b]
        if let ta = from.track, let tb = to.track, (from.speed ?? 0) >= 0.8, (to.speed ?? 0) >= 0.8,
            Geodesy.angle(between: ta, and: tb) > Self.turn
        {
            // Where the line along the first course meets the line along the second, ahead of the
            // first fix and behind the second: s da = b - u db.
            let toRadians = Double.pi / 180
            let da = (x: sin(ta * toRadians), y: cos(ta * toRadians))
            let db = (x: sin(tb * toRadians), y: cos(tb * toRadians))
            let cross = da.x * db.y - da.y * db.x
            guard abs(cross) > 1e-6 else { return nil }  // turned right round: no way to tell
            let s = (b.x * db.y - b.y * db.x) / cross, u = (da.x * b.y - da.y * b.x) / cross
            let step = (b.x * b.x + b.y * b.y).squareRoot()
            guard s > 0, u > 0, s + u <= 2 * step + 1 else { return nil }
            vertices.insert((s * da.x, s * da.y), at: 1)
        }
        self.vertices = vertices
        reach = vertices.map { ($0.x * $0.x + $0.y * $0.y).squareRoot() }.max() ?? 0
    }

    private static func local(
        _ c: Coordinate, origin: Coordinate, scale: (north: Double, east: Double)
    ) -> (x: Double, y: Double) {
        (c.longitudeDifference(from: origin) * scale.east, (c.latitude - origin.latitude) * scale.north)
    }

    /// Whether the way passes `centre` inside `radius` by half the fixes' error estimate, and
    /// within half the radius, between the fixes (where it passes nearest one of them, that fix
    /// says as much alone).
    func passes(_ centre: Coordinate, radius: Double) -> Bool {
        let c = Self.local(centre, origin: origin, scale: scale)
        guard (c.x * c.x + c.y * c.y).squareRoot() <= reach + radius else { return false }
        var nearest = Double.infinity
        for (p, q) in zip(vertices, vertices.dropFirst()) {
            let dx = q.x - p.x, dy = q.y - p.y
            let length2 = dx * dx + dy * dy
            guard length2 > 0 else { continue }
            let t = min(1, max(0, ((c.x - p.x) * dx + (c.y - p.y) * dy) / length2))
            let ex = p.x + t * dx - c.x, ey = p.y + t * dy - c.y
            nearest = min(nearest, (ex * ex + ey * ey).squareRoot())
        }
        let ends = [vertices[0], vertices[vertices.count - 1]].map { v in
            ((v.x - c.x) * (v.x - c.x) + (v.y - c.y) * (v.y - c.y)).squareRoot()
        }
        guard nearest < ends.min()! - 0.01 else { return false }
        let error = max(errors.0 ?? radius / 4, errors.1 ?? radius / 4)
        return nearest + error / 2 <= radius && nearest <= radius / 2
    }
}

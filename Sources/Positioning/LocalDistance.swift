import Foundation
import TourModel

/// Short distances on the WGS84 ellipsoid, fast.
///
/// The fix filter and the trace summary measure every consecutive pair of fixes: metres apart,
/// at walking scale. Vincenty's iteration (`Coordinate.distance(to:)`) costs a few hundred
/// nanoseconds a pair; this local projection, with the ellipsoid's meridional and normal radii
/// of curvature at the pair's mean latitude, costs a few tens and stays within 0.01 % of it up to
/// `maximum` metres (a test pins that against Vincenty). Beyond that it defers to Vincenty.
enum LocalDistance {
    /// Metres up to which the projection is used.
    static let maximum = 20_000.0

    static func metres(_ a: Coordinate, _ b: Coordinate) -> Double {
        let e2 = Geodesy.flattening * (2 - Geodesy.flattening)
        let φ = (a.latitude + b.latitude) * 0.5 * .pi / 180
        let s = sin(φ)
        let w = 1 - e2 * s * s
        let n = Geodesy.semiMajorAxis / w.squareRoot()             // prime vertical
        let m = Geodesy.semiMajorAxis * (1 - e2) / (w * w.squareRoot())  // meridian
        var Δλ = b.longitude - a.longitude
        if Δλ > 180 { Δλ -= 360 } else if Δλ < -180 { Δλ += 360 }
        let dy = (b.latitude - a.latitude) * .pi / 180 * m
        let dx = Δλ * .pi / 180 * n * cos(φ)
        let d = (dx * dx + dy * dy).squareRoot()
        return d <= maximum ? d : a.distance(to: b)
    }
}

import Foundation
import TourModel

/// Short distances on the WGS84 ellipsoid, fast.
///
/// The fix filter and the trace summary measure every consecutive pair of fixes: metres apart,
/// at walking scale. Vincenty's iteration (`Coordinate.distance(to:)`) costs a few hundred
/// nanoseconds a pair; this local projection, with the ellipsoid's meridional and normal radii
/// of curvature at the pair's mean latitude, costs a few tens and stays within 0.01 % of it up to
/// `maximum` metres (a test pins that against Vincenty). Beyond that it defers to Vincenty.
package enum LocalDistance {
    /// Metres up to which the projection is used.
    package static let maximum = 20_000.0

    package static func metres(_ a: Coordinate, _ b: Coordinate) -> Double {
        let scale = Geodesy.metresPerDegree(atLatitude: (a.latitude + b.latitude) * 0.5)
        var Δλ = b.longitude - a.longitude
        if Δλ > 180 { Δλ -= 360 } else if Δλ < -180 { Δλ += 360 }
        let dy = (b.latitude - a.latitude) * scale.north
        let dx = Δλ * scale.east
        let d = (dx * dx + dy * dy).squareRoot()
        return d <= maximum ? d : a.distance(to: b)
    }
}

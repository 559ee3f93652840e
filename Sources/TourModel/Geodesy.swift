import Foundation

/// Geodesy on the WGS84 ellipsoid.
///
/// Walking distances are short, but a spherical formula is off by up to 0.5% depending on
/// latitude and direction, which is a visible error on a 30 m trigger radius at 6 km. Vincenty's
/// formulae are accurate to well under a millimetre on the ellipsoid; the rare non-convergent
/// case (nearly antipodal points, never a walk) falls back to a spherical answer.
public enum Geodesy {
    public static let semiMajorAxis = 6_378_137.0
    public static let flattening = 1 / 298.257_223_563
    public static let semiMinorAxis = semiMajorAxis * (1 - flattening)
    /// Mean earth radius (IUGG), used only for the spherical fallback.
    public static let meanRadius = 6_371_008.8

    /// Metres per degree of latitude (north) and of longitude (east) at `latitude`, from the
    /// ellipsoid's meridional and prime-vertical radii of curvature there: flat geometry at walking
    /// scale, within 0.01 % of Vincenty up to about 20 km.
    public static func metresPerDegree(atLatitude latitude: Double) -> (north: Double, east: Double) {
        let e2 = flattening * (2 - flattening)
        let φ = latitude * .pi / 180
        let s = sin(φ)
        let w = 1 - e2 * s * s
        let n = semiMajorAxis / w.squareRoot()  // prime vertical
        let m = semiMajorAxis * (1 - e2) / (w * w.squareRoot())  // meridian
        // cos φ from sin φ (latitudes lie within ±90°, where it is never negative): one
        // trigonometric call where two were, on every pair of fixes a walk measures. Within a
        // hair of a pole 1 - sin² φ rounds to 0, where cos φ does not (a degree of longitude is
        // never 0 m: routes divide by it).
        let c2 = 1 - s * s
        let c = c2 > 1e-12 ? c2.squareRoot() : cos(φ)
        return (m * .pi / 180, n * c * .pi / 180)
    }

    /// Distance in metres and initial/final bearings in degrees (0 = north, clockwise).
    public struct Inverse: Sendable, Hashable {
        public var distance: Double
        public var initialBearing: Double
        public var finalBearing: Double
    }

    public static func inverse(_ p1: Coordinate, _ p2: Coordinate) -> Inverse {
        let a = semiMajorAxis, b = semiMinorAxis, f = flattening
        let φ1 = p1.latitude * .pi / 180, φ2 = p2.latitude * .pi / 180
        let L = (p2.longitude - p1.longitude) * .pi / 180
        let tanU1 = (1 - f) * tan(φ1), cosU1 = 1 / (1 + tanU1 * tanU1).squareRoot(), sinU1 = tanU1 * cosU1
        let tanU2 = (1 - f) * tan(φ2), cosU2 = 1 / (1 + tanU2 * tanU2).squareRoot(), sinU2 = tanU2 * cosU2

        var λ = L
        var sinλ = 0.0, cosλ = 0.0, sinσ = 0.0, cosσ = 0.0, σ = 0.0
        var cos2α = 0.0, cos2σm = 0.0
        var converged = false
        for _ in 0..<200 {
            sinλ = sin(λ); cosλ = cos(λ)
            let t1 = cosU2 * sinλ
            let t2 = cosU1 * sinU2 - sinU1 * cosU2 * cosλ
            sinσ = (t1 * t1 + t2 * t2).squareRoot()
            if sinσ == 0 {  // coincident points
                return Inverse(distance: 0, initialBearing: 0, finalBearing: 0)
            }
            cosσ = sinU1 * sinU2 + cosU1 * cosU2 * cosλ
            σ = atan2(sinσ, cosσ)
            let sinα = cosU1 * cosU2 * sinλ / sinσ
            cos2α = 1 - sinα * sinα
            cos2σm = cos2α != 0 ? cosσ - 2 * sinU1 * sinU2 / cos2α : 0  // equatorial line
            let C = f / 16 * cos2α * (4 + f * (4 - 3 * cos2α))
            let λPrev = λ
            λ = L + (1 - C) * f * sinα * (σ + C * sinσ * (cos2σm + C * cosσ * (-1 + 2 * cos2σm * cos2σm)))
            if abs(λ - λPrev) < 1e-12 { converged = true; break }
        }
        guard converged else { return sphericalInverse(p1, p2) }
        let u2 = cos2α * (a * a - b * b) / (b * b)
        let A = 1 + u2 / 16384 * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)))
        let B = u2 / 1024 * (256 + u2 * (-128 + u2 * (74 - 47 * u2)))
        let Δσ =
            B * sinσ
            * (cos2σm + B / 4
                * (cosσ * (-1 + 2 * cos2σm * cos2σm)
                    - B / 6 * cos2σm * (-3 + 4 * sinσ * sinσ) * (-3 + 4 * cos2σm * cos2σm)))
        let s = b * A * (σ - Δσ)
        let α1 = atan2(cosU2 * sinλ, cosU1 * sinU2 - sinU1 * cosU2 * cosλ)
        let α2 = atan2(cosU1 * sinλ, -sinU1 * cosU2 + cosU1 * sinU2 * cosλ)
        return Inverse(
            distance: s, initialBearing: normalizedBearing(α1 * 180 / .pi),
            finalBearing: normalizedBearing(α2 * 180 / .pi))
    }

    /// The point reached from `start` after `distance` metres on `bearing` degrees.
    public static func destination(from start: Coordinate, distance: Double, bearing: Double) -> Coordinate {
        let a = semiMajorAxis, b = semiMinorAxis, f = flattening
        let α1 = bearing * .pi / 180
        let sinα1 = sin(α1), cosα1 = cos(α1)
        let tanU1 = (1 - f) * tan(start.latitude * .pi / 180)
        let cosU1 = 1 / (1 + tanU1 * tanU1).squareRoot(), sinU1 = tanU1 * cosU1
        let σ1 = atan2(tanU1, cosα1)
        let sinα = cosU1 * sinα1
        let cos2α = 1 - sinα * sinα
        let u2 = cos2α * (a * a - b * b) / (b * b)
        let A = 1 + u2 / 16384 * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)))
        let B = u2 / 1024 * (256 + u2 * (-128 + u2 * (74 - 47 * u2)))
        var σ = distance / (b * A)
        var sinσ = 0.0, cosσ = 0.0, cos2σm = 0.0
        for _ in 0..<100 {
            cos2σm = cos(2 * σ1 + σ)
            sinσ = sin(σ); cosσ = cos(σ)
            let Δσ =
                B * sinσ
                * (cos2σm + B / 4
                    * (cosσ * (-1 + 2 * cos2σm * cos2σm)
                        - B / 6 * cos2σm * (-3 + 4 * sinσ * sinσ) * (-3 + 4 * cos2σm * cos2σm)))
            let σPrev = σ
            σ = distance / (b * A) + Δσ
            if abs(σ - σPrev) < 1e-12 { break }
        }
        sinσ = sin(σ); cosσ = cos(σ); cos2σm = cos(2 * σ1 + σ)
        let x = sinU1 * sinσ - cosU1 * cosσ * cosα1
        let φ2 = atan2(sinU1 * cosσ + cosU1 * sinσ * cosα1, (1 - f) * (sinα * sinα + x * x).squareRoot())
        let λ = atan2(sinσ * sinα1, cosU1 * cosσ - sinU1 * sinσ * cosα1)
        let C = f / 16 * cos2α * (4 + f * (4 - 3 * cos2α))
        let L = λ - (1 - C) * f * sinα * (σ + C * sinσ * (cos2σm + C * cosσ * (-1 + 2 * cos2σm * cos2σm)))
        var lon = start.longitude + L * 180 / .pi
        lon = (lon + 540).truncatingRemainder(dividingBy: 360) - 180
        return Coordinate(latitude: φ2 * 180 / .pi, longitude: lon)
    }

    static func sphericalInverse(_ p1: Coordinate, _ p2: Coordinate) -> Inverse {
        let φ1 = p1.latitude * .pi / 180, φ2 = p2.latitude * .pi / 180
        let Δφ = φ2 - φ1, Δλ = (p2.longitude - p1.longitude) * .pi / 180
        let h = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        let d = 2 * meanRadius * asin(min(1, h.squareRoot()))
        let y = sin(Δλ) * cos(φ2)
        let x = cos(φ1) * sin(φ2) - sin(φ1) * cos(φ2) * cos(Δλ)
        let brg = normalizedBearing(atan2(y, x) * 180 / .pi)
        return Inverse(distance: d, initialBearing: brg, finalBearing: brg)
    }

    /// Degrees between two bearings, the short way round (0 to 180).
    public static func angle(between a: Double, and b: Double) -> Double {
        let d = abs((a - b).truncatingRemainder(dividingBy: 360))
        return d > 180 ? 360 - d : d
    }

    static func normalizedBearing(_ degrees: Double) -> Double {
        let r = degrees.truncatingRemainder(dividingBy: 360)
        return r < 0 ? r + 360 : r
    }
}

extension Coordinate {
    /// Ellipsoidal distance in metres.
    public func distance(to other: Coordinate) -> Double { Geodesy.inverse(self, other).distance }
    /// Initial bearing in degrees from north, clockwise, in [0, 360).
    public func bearing(to other: Coordinate) -> Double { Geodesy.inverse(self, other).initialBearing }
    /// The coordinate `distance` metres away along `bearing` degrees.
    public func destination(distance: Double, bearing: Double) -> Coordinate {
        Geodesy.destination(from: self, distance: distance, bearing: bearing)
    }
}

/// A position on the WGS84 ellipsoid, in decimal degrees.
public struct Coordinate: Sendable, Hashable, Codable, CustomStringConvertible {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// `degrees` east brought into (-180, 180]: across the antimeridian, 179.9 + 0.2 is -179.9.
    public static func wrappedLongitude(_ degrees: Double) -> Double {
        guard degrees.isFinite else { return degrees }
        var l = degrees.truncatingRemainder(dividingBy: 360)
        if l > 180 { l -= 360 } else if l <= -180 { l += 360 }
        return l
    }

    /// Degrees east from `other` to this one, the short way round (-180...180).
    public func longitudeDifference(from other: Coordinate) -> Double {
        Self.wrappedLongitude(longitude - other.longitude)
    }

    /// True for a latitude in [-90, 90] and a longitude in [-180, 180], both finite.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
    }

    public var description: String {
        func f(_ v: Double) -> String {
            let scaled = (v * 1_000_000).rounded() / 1_000_000
            return String(scaled)
        }
        return "\(f(latitude)),\(f(longitude))"
    }
}

/// A position on the WGS84 ellipsoid, in decimal degrees.
public struct Coordinate: Sendable, Hashable, Codable, CustomStringConvertible {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
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

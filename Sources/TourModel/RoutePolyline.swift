import Foundation

/// The API's `routePolyline`: `"lat,lng;lat,lng;..."`.
public enum RoutePolyline {
    /// Parses a polyline; empty segments (a trailing `;`) are ignored.
    public static func parse(_ text: String) throws(RoutePolylineError) -> [Coordinate] {
        var result: [Coordinate] = []
        var index = 0
        for segment in text.split(separator: ";", omittingEmptySubsequences: true) {
            let trimmed = segment.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            let parts = trimmed.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2,
                let lat = Double(parts[0].trimmingCharacters(in: .whitespaces)),
                let lng = Double(parts[1].trimmingCharacters(in: .whitespaces))
            else {
                throw RoutePolylineError(
                    index: index, segment: String(trimmed),
                    reason: "expected \"lat,lng\"")
            }
            let c = Coordinate(latitude: lat, longitude: lng)
            guard c.isValid else {
                // 139.76,35.68 (Tokyo) is a longitude first: say so, not only that it is off the earth.
                let swapped = Coordinate(latitude: lng, longitude: lat).isValid
                throw RoutePolylineError(
                    index: index, segment: String(trimmed),
                    reason: "not a coordinate on earth"
                        + (swapped ? " (latitude and longitude swapped? it is \"lat,lng\")" : ""))
            }
            result.append(c)
            index += 1
        }
        return result
    }

    public static func format(_ coordinates: [Coordinate]) -> String {
        coordinates.map { "\($0.latitude),\($0.longitude)" }.joined(separator: ";")
    }
}

public struct RoutePolylineError: Error, Sendable, Hashable, CustomStringConvertible {
    public var index: Int
    public var segment: String
    public var reason: String
    public var description: String { "point \(index + 1) \"\(segment)\": \(reason)" }
}

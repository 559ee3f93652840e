import Foundation
import Testing

@testable import TourModel

/// Reference values from GeographicLib (Karney, WGS84), the ellipsoidal reference.
struct GeodesyTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var from: Coordinate, to: Coordinate, distance: Double, bearing: Double
        var testDescription: String { "\(from) → \(to)" }
    }

    static let cases: [Case] = [
        .init(
            from: .init(latitude: 44.4938, longitude: 11.3430), to: .init(latitude: 44.4949, longitude: 11.3465),
            distance: 304.0342, bearing: 66.2930),
        .init(
            from: .init(latitude: 45.4642, longitude: 9.1900), to: .init(latitude: 45.4685, longitude: 9.1824),
            distance: 762.6610, bearing: 308.8046),
        .init(
            from: .init(latitude: -33.8568, longitude: 151.2153), to: .init(latitude: -33.8523, longitude: 151.2108),
            distance: 650.0469, bearing: 320.1600),
        .init(
            from: .init(latitude: 64.1466, longitude: -21.9426), to: .init(latitude: 64.1420, longitude: -21.9270),
            distance: 916.3256, bearing: 124.0234),
        .init(
            from: .init(latitude: 0, longitude: 0), to: .init(latitude: 0, longitude: 0.01), distance: 1113.1949,
            bearing: 90),
        .init(
            from: .init(latitude: 51.5007, longitude: -0.1246), to: .init(latitude: 51.5055, longitude: -0.0754),
            distance: 3457.7309, bearing: 81.0960),
    ]

    @Test("distance matches the ellipsoidal reference to 0.1% (in fact to a millimetre)", arguments: cases)
    func distanceMatchesReference(_ c: Case) {
        let d = c.from.distance(to: c.to)
        #expect(abs(d - c.distance) / c.distance < 0.001)
        #expect(abs(d - c.distance) < 0.001)
    }

    @Test("initial bearing matches the reference within 0.001°", arguments: cases)
    func bearingMatchesReference(_ c: Case) {
        #expect(abs(c.from.bearing(to: c.to) - c.bearing) < 0.001)
    }

    @Test func destinationMatchesReference() {
        let a = Coordinate(latitude: 44.4938, longitude: 11.3430).destination(distance: 1500, bearing: 57)
        #expect(abs(a.latitude - 44.50115081396969) < 1e-8)
        #expect(abs(a.longitude - 11.358818402279333) < 1e-8)
        let b = Coordinate(latitude: -33.8568, longitude: 151.2153).destination(distance: 250, bearing: 300)
        #expect(abs(b.latitude - -33.85567303735065) < 1e-8)
        #expect(abs(b.longitude - 151.2129604211562) < 1e-8)
    }

    @Test func destinationThenInverseRoundTrips() {
        let start = Coordinate(latitude: 41.9028, longitude: 12.4964)
        for bearing in stride(from: 0.0, to: 360, by: 22.5) {
            let end = start.destination(distance: 437.5, bearing: bearing)
            #expect(abs(start.distance(to: end) - 437.5) < 1e-4)  // 0.1 mm
        }
    }

    /// Metres per degree against the closed form with cos φ (computed from sin φ now), and never
    /// 0 m a degree of longitude, also at a pole, where 1 - sin² φ rounds to 0 (a route divides by
    /// it: a point at a pole gave a NaN longitude).
    @Test(arguments: [-90.0, -89.999_999_99, -60, -12.5, 0, 44.49, 71, 89.999_999_99, 90])
    func metresPerDegreeMatchTheClosedFormAndStayPositive(latitude: Double) {
        let m = Geodesy.metresPerDegree(atLatitude: latitude)
        let e2 = Geodesy.flattening * (2 - Geodesy.flattening)
        let φ = latitude * .pi / 180
        let n = Geodesy.semiMajorAxis / (1 - e2 * sin(φ) * sin(φ)).squareRoot()
        let east = n * cos(φ) * .pi / 180
        #expect(m.east > 0 && m.east.isFinite && m.north.isFinite, "\(m)")
        #expect(abs(m.east - east) <= 1e-9 * 111_320 + 1e-9 * east, "\(m.east) against \(east)")
    }

    @Test func coincidentPointsAreZeroApart() {
        let p = Coordinate(latitude: 44.5, longitude: 11.3)
        #expect(p.distance(to: p) == 0)
    }

    @Test func nearlyAntipodalPointsFallBackInsteadOfHanging() {
        let d = Coordinate(latitude: 0, longitude: 0).distance(to: Coordinate(latitude: 0.5, longitude: 179.7))
        #expect(d > 19_000_000 && d < 20_100_000)
    }

    @Test func routePolylineParsesAndRejects() throws {
        let route = try RoutePolyline.parse("44.4938,11.3430; 44.4949,11.3465;")
        #expect(
            route == [
                Coordinate(latitude: 44.4938, longitude: 11.3430), Coordinate(latitude: 44.4949, longitude: 11.3465),
            ])
        #expect(try RoutePolyline.parse("") == [])
        #expect(throws: RoutePolylineError.self) { try RoutePolyline.parse("44.49;11.34") }
        #expect(throws: RoutePolylineError.self) { try RoutePolyline.parse("95,11") }
        do {
            _ = try RoutePolyline.parse("1,2;x,3")
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "point 2 \"x,3\": expected \"lat,lng\"")
        }
    }
}

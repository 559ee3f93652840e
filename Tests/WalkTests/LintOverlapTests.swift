import Foundation
import TestSupport
import Testing
import TourModel

@testable import Curation
@testable import Walk

/// Overlapping radii at scale: lint finds exactly the pairs a comparison of every pair would,
/// through a spatial index, and says it once per point, so a dense tour gives a readable list.
@Suite("lint: overlapping radii", .serialized)
struct LintOverlapTests {
    /// Writes a tour of `points` (latitude, longitude, radius) with titles P1, P2, ... and a
    /// completion message, so the only findings are about the points' places.
    static func writeTour(_ points: [(Double, Double, Double)], in dir: TemporaryDirectory, name: String = "tour")
        throws -> URL
    {
        let root = dir.url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var json =
            #"{"format": 1, "id": "t", "slug": "t", "languages": {"en": {"title": "T", "completionMessage": "Bye"}}, "points": ["#
        for (i, p) in points.enumerated() {
            if i > 0 { json += "," }
            json +=
                #"{"id": "p\#(i + 1)", "order": \#(i + 1), "location": {"lat": \#(p.0), "lng": \#(p.1)}, "#
                + #""triggerRadiusMeters": \#(p.2), "content": {"en": {"title": "P\#(i + 1)"}}}"#
        }
        try Data((json + "]}").utf8).write(to: root.appendingPathComponent("tour.json"))
        return root
    }

    static func north(_ metres: Double, from lat: Double = 45.0) -> Double { lat + metres / 111_132.95 }

    @Test(
        "a small tour: one line per point with its later overlapping neighbours, pairs as before, across the antimeridian too"
    )
    func exactFindings() throws {
        let dir = try TemporaryDirectory()
        let root = try Self.writeTour(
            [
                (45.0, 9.0, 30), (Self.north(40), 9.0, 30), (Self.north(50), 9.0, 25), (Self.north(500), 9.0, 30),
                (-16.5, 179.9999, 20), (-16.5, -179.9999, 20),
            ], in: dir)
        let findings = TourLint().lint(folder: root).findings.filter { $0.check == "overlapping-radii" }.map(
            \.description)
        #expect(
            findings == [
                "warning: point 1 (P1): radius overlaps those of 2 later points: point 2 (P2), 40 m away (radii add up to 60 m); point 3 (P3), 50 m away (radii add up to 55 m): they can trigger at once [overlapping-radii]",
                "warning: point 2 (P2) and point 3 (P3): radii overlap (10 m apart, radii add up to 55 m): both can trigger at once [overlapping-radii]",
                "warning: point 5 (P5) and point 6 (P6): radii overlap (21 m apart, radii add up to 40 m): both can trigger at once [overlapping-radii]",
            ])
    }

    /// A loop's welcome and finale at its meeting point overlap on the map, but the finale is
    /// armed only when the walker's progress comes round the loop (rule 10): lint warned that
    /// both "trigger at once". Points that the route brings together still overlap.
    @Test("a loop's welcome and finale at its meeting point are not said to trigger at once")
    func aLoopsMeetingPointIsNotAnOverlap() throws {
        let dir = try TemporaryDirectory()
        let root = try Self.writeTour(
            [
                (45.0, 9.0, 30), (Self.north(30), 9.0, 30), (Self.north(150), 9.0005, 30),
                (Self.north(150), 9.0025, 30), (45.0, 9.0025, 30), (Self.north(5), 9.0, 30),
            ], in: dir)
        let json = root.appendingPathComponent("tour.json")
        var text = try String(contentsOf: json, encoding: .utf8)
        let loop = [(45.0, 9.0), (Self.north(150), 9.0), (Self.north(150), 9.0025), (45.0, 9.0025), (45.0, 9.0)]
        text = text.replacingOccurrences(
            of: #""points": ["#,
            with: #""route": "\#(loop.map { "\($0.0),\($0.1)" }.joined(separator: ";"))", "points": ["#)
        try Data(text.utf8).write(to: json)
        let findings = TourLint().lint(folder: root).findings
        let overlaps = findings.filter { $0.check == "overlapping-radii" }.map(\.location)
        // The welcome and point 2, 30 m on along the route, do overlap; the finale overlaps nothing.
        #expect(overlaps == ["point 1 (P1) and point 2 (P2)"], "\(findings.map(\.description))")
        #expect(findings.contains { $0.check == "route-passes-again" && $0.location == "point 6 (P6)" })
        #expect(findings.allSatisfy { $0.severity == .warning }, "\(findings.map(\.description))")
    }

    @Test("a point with many overlapping neighbours lists five and counts the rest")
    func longNeighbourListsAreCut() throws {
        let dir = try TemporaryDirectory()
        let root = try Self.writeTour((0..<9).map { (Self.north(Double($0) * 5), 9.0, 30) }, in: dir)
        let first = try #require(TourLint().lint(folder: root).findings.first { $0.check == "overlapping-radii" })
        #expect(first.location == "point 1 (P1)")
        #expect(
            first.message.hasPrefix(
                "radius overlaps those of 8 later points: point 2 (P2), 5 m away (radii add up to 60 m); "))
        #expect(
            first.message.hasSuffix(
                "; point 6 (P6), 25 m away (radii add up to 60 m); and 3 more: they can trigger at once"))
    }

    /// A jittered grid, checked against every pair compared directly.
    @Test("a generated tour of 800 points: the same overlaps as comparing every pair")
    func generatedTourMatchesEveryPair() throws {
        var generator = SystemRandomNumberGenerator()
        var points: [(Double, Double, Double)] = []
        for row in 0..<20 {
            for column in 0..<40 {
                let lat = Self.north(Double(row) * 35 + Double.random(in: -10...10, using: &generator), from: 59.9)
                let lng = 10.7 + (Double(column) * 35 + Double.random(in: -10...10, using: &generator)) / 55_800
                points.append((lat, lng, Double.random(in: 5...40, using: &generator)))
            }
        }
        let dir = try TemporaryDirectory()
        let root = try Self.writeTour(points, in: dir)
        var expected: [Int: Int] = [:]  // point index -> later points it overlaps
        let coordinates = points.map { Coordinate(latitude: $0.0, longitude: $0.1) }
        // Where the walk's route (the straight lines between the points, row by row) brings them
        // together: a point of the next row is 1.4 km on along it.
        let stations = TourRoute(
            route: [],
            points: coordinates.enumerated().map { i, c in
                PlayablePoint(
                    id: "p\(i + 1)", order: i + 1, coordinate: c, triggerRadiusMeters: points[i].2, title: "P\(i + 1)")
            }
        ).stations
        for i in points.indices {
            for j in points.indices
            where j > i
                && coordinates[i].distance(to: coordinates[j]) < points[i].2 + points[j].2
                && stations[j] - stations[i] <= points[i].2 + points[j].2 + WalkCore.stretchSlack
            {
                expected[i, default: 0] += 1
            }
        }
        let findings = TourLint().lint(folder: root).findings.filter { $0.check == "overlapping-radii" }
        var found: [Int: Int] = [:]
        for finding in findings {
            let order = try #require(Int(finding.location.dropFirst("point ".count).prefix { $0.isNumber }))
            if finding.location.contains(" and ") {
                found[order - 1] = 1
            } else {
                let digits = String(finding.message.dropFirst("radius overlaps those of ".count).prefix { $0.isNumber })
                found[order - 1] = Int(digits) ?? -1
            }
        }
        #expect(found == expected)
        #expect(expected.values.reduce(0, +) > 500)  // the grid is dense enough to mean something
    }

    @Test("a dense 10,000-point tour: lint's text output stays a page, the counts stay whole")
    func tenThousandPointsPrintABoundedList() throws {
        let dir = try TemporaryDirectory()
        var points: [(Double, Double, Double)] = []
        for i in 0..<10_000 {
            let lat = Self.north(Double(i / 100) * 15, from: 44.49)
            let lng = 11.34 + Double(i % 100) * 15 / 79_000
            points.append((lat, lng, 30))
        }
        let root = try Self.writeTour(points, in: dir)
        let result = try runWalkscape(["lint", root.path], timeout: 300)
        #expect(!result.timedOut)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count <= 50, "\(lines.count) lines")
        let summary = " more like these [overlapping-radii] (--json lists them all)"
        #expect(lines.contains { $0.hasPrefix("warning: ") && $0.hasSuffix(summary) })
        let json = try runWalkscape(["lint", root.path, "--json"], timeout: 300)
        let findings = try JSONDecoder().decode([LintFinding].self, from: json.stdoutData)
        // Every point but the last of each row: the next row's, 15 m away, is 1.5 km on along the
        // walk's route (the straight lines between the points, row after row).
        #expect(findings.count { $0.check == "overlapping-radii" } == 9900)
        #expect(lines.last.map(String.init) == "\(root.path): 0 errors, \(findings.count) warnings")
    }
}

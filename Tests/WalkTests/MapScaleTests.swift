import Foundation
import TestSupport
import Testing

@testable import Curation
@testable import Walk

/// `walkscape map` on a trace far longer than a picture can show: the drawn walk is thinned while
/// the trace streams past, and thinning changes neither where the walk went nor where it had gaps.
@Suite("walkscape map: long traces", .serialized)
struct MapScaleTests {
    /// Circles of 200 m round the demo tour's middle at 1.3 m/s, one GPX point a second for
    /// `seconds`, with the receiver silent for 9 s once, half-way.
    static func longWalk(seconds: Int, to url: URL) throws {
        var gpx =
            #"<?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"# + "\n"
        let start = Date(timeIntervalSince1970: 1_776_500_000)
        for t in 0..<seconds where !(seconds / 2..<seconds / 2 + 8).contains(t) {
            let angle = Double(t) * 1.3 / 200
            let lat = 43.7700 + 200 * sin(angle) / 111_132.95, lng = 11.2540 + 200 * cos(angle) / 80_400
            let stamp = start.addingTimeInterval(Double(t)).formatted(.iso8601)
            gpx +=
                #"<trkpt lat="\#(String(format: "%.7f", lat))" lon="\#(String(format: "%.7f", lng))"><time>\#(stamp)</time></trkpt>"#
                + "\n"
        }
        try Data((gpx + "</trkseg></trk></gpx>\n").utf8).write(to: url)
    }

    /// Two points 100 m apart either side of the antimeridian (Taveuni, Fiji): the frame spanned
    /// the globe the long way, and each 30 m radius was drawn under a pixel.
    @Test("a tour across the antimeridian is drawn at its own scale")
    func tourAcrossTheAntimeridian() throws {
        let dir = try TemporaryDirectory()
        let root = dir.url.appendingPathComponent("taveuni")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let json = """
            {"format": 1, "id": "t", "slug": "taveuni", "languages": {"en": {"title": "Taveuni", "completionMessage": "Bye"}},
             "points": [
              {"id": "p1", "order": 1, "location": {"lat": -16.8, "lng": 179.99953}, "triggerRadiusMeters": 30,
               "content": {"en": {"title": "West of the line"}}},
              {"id": "p2", "order": 2, "location": {"lat": -16.8, "lng": -179.99953}, "triggerRadiusMeters": 30,
               "content": {"en": {"title": "East of the line"}}}]}
            """
        try Data(json.utf8).write(to: root.appendingPathComponent("tour.json"))
        let out = dir.file("taveuni.svg")
        let result = try runWalkscape(["map", root.path, "-o", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        let svg = try MapCommandTests.read(out)
        let circles = svg.elements.filter { $0.group == "radii" && $0.name == "circle" }
        let radii = circles.compactMap { $0.attributes["r"].flatMap(Double.init) }
        let xs = circles.compactMap { $0.attributes["cx"].flatMap(Double.init) }
        #expect(radii.count == 2 && radii.allSatisfy { $0 > 100 }, "\(radii)")
        // 100 m apart: a little over three radii between the centres, west one on the left.
        #expect(xs.count == 2 && xs[0] < xs[1], "\(xs)")
        if xs.count == 2, let r = radii.first { #expect(abs((xs[1] - xs[0]) / r - 100.0 / 30) < 0.1, "\(xs) \(r)") }
    }

    @Test("60,000 fixes a second apart: at most 20,000 drawn, no false gaps, the one real gap kept")
    func thinnedTraceKeepsItsGaps() throws {
        let dir = try TemporaryDirectory()
        let trace = dir.file("long.gpx")
        try Self.longWalk(seconds: 60_000, to: trace)
        let out = dir.file("long.svg")
        let result = try runWalkscape(["map", "tours/demo", "--trace", trace.path, "-o", out.path], timeout: 300)
        #expect(result.status == 0, "\(result.stderr)")
        let svg = try MapCommandTests.read(out)
        #expect(svg.count("line", in: "trace") == 1)  // the 9 s silence, and nothing else
        let drawn = svg.elements.filter { $0.group == "trace" && $0.name == "polyline" }
            .map { ($0.attributes["points"] ?? "").split(separator: " ").count }
        #expect(drawn.reduce(0, +) <= TourMap.maxDrawnFixes + 2 * drawn.count)
        #expect(drawn.reduce(0, +) >= TourMap.maxDrawnFixes / 2)
    }
}

import Foundation
import TestSupport
import Testing

@testable import Curation
@testable import Walk

/// `walkscape lint` on the demo tour and on tours broken on purpose, one problem per check.
@Suite("walkscape lint", .serialized)
struct LintCommandTests {
    /// Four points along a street running north from (45.0, 9.0). Point 2 (100 m on) carries
    /// 60 s of narration, but point 3 is only 39 m further; point 3 has a 10 m radius and a WAV
    /// named .mp3; point 4 has a 200 m radius (overlapping all others), lies before point 3 along
    /// the route, and has no Italian; the Italian completion message is missing; the English
    /// subtitles of point 1 outlast its narration, the Italian ones are not SRT.
    static func brokenTour(in dir: TemporaryDirectory) throws -> URL {
        let root = dir.url.appendingPathComponent("broken")
        let media = root.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        let short = try FixtureAudio.tone(seconds: 1)
        let long = try FixtureAudio.silence(seconds: 60)
        try FileManager.default.copyItem(at: short.mp3, to: media.appendingPathComponent("short.mp3"))
        try FileManager.default.copyItem(at: long.mp3, to: media.appendingPathComponent("long.mp3"))
        // What a web server's error page saved under a narration's name looks like.
        try Data("<html><body><h1>404 Not Found</h1></body></html>\n".utf8).write(
            to: media.appendingPathComponent("error-page.mp3"))
        try Data("1\n00:00:00,000 --> 00:00:05,000\nToo long\n\n".utf8).write(
            to: media.appendingPathComponent("long.srt"))
        try Data("1\nthis is not a timing line\nHello\n".utf8).write(to: media.appendingPathComponent("bad.srt"))
        let json = """
            {"format": 1, "id": "broken", "slug": "broken",
             "route": "45.0,9.0;45.01,9.0",
             "languages": {"en": {"title": "Broken", "completionMessage": "Bye"}, "it": {"title": "Rotto"}},
             "points": [
              {"id": "p1", "order": 1, "location": {"lat": 45.0, "lng": 9.0}, "triggerRadiusMeters": 25,
               "content": {"en": {"title": "One", "audio": "media/short.mp3", "subtitles": "media/long.srt"},
                           "it": {"title": "Uno", "audio": "media/short.mp3", "subtitles": "media/bad.srt"}}},
              {"id": "p2", "order": 2, "location": {"lat": 45.0009, "lng": 9.0}, "triggerRadiusMeters": 25,
               "content": {"en": {"title": "Two", "audio": "media/long.mp3"}, "it": {"title": "Due", "audio": "media/short.mp3"}}},
              {"id": "p3", "order": 3, "location": {"lat": 45.00125, "lng": 9.0}, "triggerRadiusMeters": 10,
               "content": {"en": {"title": "Three", "audio": "media/error-page.mp3"}, "it": {"title": "Tre"}}},
              {"id": "p4", "order": 4, "location": {"lat": 45.0011, "lng": 9.0}, "triggerRadiusMeters": 200,
               "content": {"en": {"title": "Four", "audio": "media/short.mp3"}}}]}
            """
        try Data(json.utf8).write(to: root.appendingPathComponent("tour.json"))
        return root
    }

    @Test("the demo tour is clean")
    func demoIsClean() throws {
        let result = try runWalkscape(["lint", "tours/demo"])
        #expect(result.status == 0)
        #expect(result.stdout == "tours/demo: no problems found\n")
    }

    @Test("a tour broken on purpose: every problem listed, errors first, exit 1")
    func brokenTourFindings() throws {
        let dir = try TemporaryDirectory()
        let root = try Self.brokenTour(in: dir)
        let result = try runWalkscape(["lint", root.path])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "error: media/bad.srt: line 2: expected a timing line like '00:00:01,000 --> 00:00:02,500' after cue 1, found 'this is not a timing line' [subtitles-unreadable]",
                "error: media/error-page.mp3: point 3 (Three) in 'en': not audio walkscape plays (not a known audio format) [audio-unplayable]",
                // A minute of silence stands in for a long narration: a walker would hear nothing.
                "error: media/long.mp3: point 2 (Two) in 'en': the narration is silent [audio-silent]",
                "error: point 4 (Four): comes before point 3 (Three) along the route (122 m vs 139 m from its start): walkers reach them in the other order [order-against-route]",
                "warning: point 3 (Three): no narration in 'it': the point is only announced [no-audio]",
                "warning: point 4 (Four): no content in 'it': walkers in it get the en title and no narration [missing-language]",
                "warning: languages.it: no completionMessage: walkers in it finish without a word [no-completion-message]",
                "warning: media/long.srt: the last cue ends at 5.0s, after the narration (1.0s) [subtitles-outlast-audio]",
                "warning: point 3 (Three): radius 10 m is below typical GPS error (20 m): walkers may pass without triggering it [radius-too-small]",
                "warning: point 4 (Four): radius 200 m is large enough to trigger from a parallel street (over 150 m) [radius-too-large]",
                "warning: point 1 (One) and point 4 (Four): radii overlap (122 m apart, radii add up to 225 m): both can trigger at once [overlapping-radii]",
                "warning: point 2 (Two) and point 4 (Four): radii overlap (22 m apart, radii add up to 225 m): both can trigger at once [overlapping-radii]",
                "warning: point 3 (Three) and point 4 (Four): radii overlap (17 m apart, radii add up to 210 m): both can trigger at once [overlapping-radii]",
                "warning: point 2 (Two): narration in 'en' lasts 1m 00s but the walk to point 3 (Three) takes about 41.5s at 1.3 m/s: the queue builds up [audio-longer-than-walk]",
                "\(root.path): 4 errors, 10 warnings",
            ])
    }

    @Test("a drawn route of another place, or with its numbers swapped, is an error, not five warnings")
    func routeOfAnotherPlace() throws {
        let dir = try TemporaryDirectory()
        for (name, expected) in [
            (
                "swapped",
                "error: route: its latitudes and longitudes are swapped: swapped back, it runs past every point [route-elsewhere]"
            ),
            (
                "moved",
                "error: route: it runs 7999 km from the nearest point: it is not this tour's route [route-elsewhere]"
            ),
        ] {
            let root = dir.url.appendingPathComponent(name)
            try FileManager.default.copyItem(at: TestPaths.demoTour, to: root)
            let file = root.appendingPathComponent("tour.json")
            var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            let route = try #require(json["route"] as? String).split(separator: ";").map { pair in
                let numbers = pair.split(separator: ",").map { Double($0)! }
                return name == "swapped"
                    ? "\(numbers[1]),\(numbers[0])" : "\(numbers[0] - 40),\(numbers[1] + 60)"
            }
            json["route"] = route.joined(separator: ";")
            try JSONSerialization.data(withJSONObject: json).write(to: file)
            let result = try runWalkscape(["lint", root.path])
            #expect(result.status == 1, "\(result.stdout)")
            #expect(result.stdout.contains(expected), "\(result.stdout)")
            #expect(!result.stdout.contains("[off-route]"), "\(result.stdout)")
        }
    }

    /// One vertex of a drawn route 148 km out (a pair of numbers pasted from elsewhere), or one
    /// whose longitude lost a digit (4 km out, and straight back): lint said nothing, and map
    /// shrank the tour to a dot to frame it. A long real stretch of many vertices beyond the
    /// points (a summit loop, an approach from a station) is a path, not a slip: no warning, and
    /// the map shows it whole.
    @Test("a drawn route with a vertex that sticks out is named, and map frames the tour without it")
    func routeWithAStrayVertex() throws {
        let dir = try TemporaryDirectory()
        var json = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: TestPaths.demoTour.appendingPathComponent("tour.json")))
                as? [String: Any])
        let route = try #require(json["route"] as? String)
        var vertices = route.split(separator: ";").map(String.init)
        func tour(_ name: String, route: [String]) throws -> URL {
            let root = dir.url.appendingPathComponent(name)
            try FileManager.default.copyItem(at: TestPaths.demoTour, to: root)
            json["route"] = route.joined(separator: ";")
            try JSONSerialization.data(withJSONObject: json).write(to: root.appendingPathComponent("tour.json"))
            return root
        }
        func strays(_ root: URL) throws -> [String] {
            let result = try runWalkscape(["lint", root.path])
            #expect(!result.stdout.contains("[route-elsewhere]") && !result.stdout.contains("[off-route]"))
            return result.stdout.split(separator: "\n").map(String.init).filter { $0.hasSuffix("[route-stray]") }
        }

        let tail = try tour("tail", route: vertices + ["45.0,12.0"])
        let tailed = try strays(tail)
        #expect(tailed.count == 1, "\(tailed)")
        #expect(
            tailed.first?.hasPrefix(
                "warning: route: its vertex \(vertices.count + 1) (45.000000,12.000000) lies 1") == true, "\(tailed)")
        #expect(tailed.first?.contains(" km from its one neighbour") == true, "\(tailed)")

        // The seventh vertex's longitude, 11.25550, typed 11.30550.
        vertices[6] = vertices[6].replacingOccurrences(of: "11.25550", with: "11.30550")
        let spiked = try strays(try tour("spike", route: vertices))
        #expect(spiked.count == 1, "\(spiked)")
        #expect(
            spiked.first?.hasPrefix("warning: route: its vertex 7 (43.769850,11.305500) sticks out 4") == true,
            "\(spiked)")
        // The same spike with a point standing at its tip (a spur out to a viewpoint): a path.
        var withViewpoint = json
        var points = try #require(json["points"] as? [[String: Any]])
        var viewpoint = points[points.count - 1]
        viewpoint["id"] = "viewpoint"
        viewpoint["order"] = points.count + 1
        viewpoint["location"] = ["lat": 43.76985, "lng": 11.30550]
        points.append(viewpoint)
        withViewpoint["points"] = points
        let spur = dir.url.appendingPathComponent("spur")
        try FileManager.default.copyItem(at: TestPaths.demoTour, to: spur)
        withViewpoint["route"] = vertices.joined(separator: ";")
        try JSONSerialization.data(withJSONObject: withViewpoint).write(to: spur.appendingPathComponent("tour.json"))
        let spurLint = try runWalkscape(["lint", spur.path])
        #expect(!spurLint.stdout.contains("[route-stray]"), "\(spurLint.stdout)")
        vertices[6] = vertices[6].replacingOccurrences(of: "11.30550", with: "11.25550")

        // The route goes on 3 km south-west to a station, in 60 vertices: a path.
        let last = vertices[vertices.count - 1].split(separator: ",").map { Double($0)! }
        let approach = (1...60).map { step in
            String(format: "%.5f,%.5f", last[0] - Double(step) * 0.0004, last[1] - Double(step) * 0.0004)
        }
        #expect(try strays(try tour("station", route: vertices + approach)).isEmpty)

        // The map of the tour with the tail is drawn at the scale of the tour without it.
        func radii(_ folder: URL) throws -> [Double] {
            let out = dir.file(folder.lastPathComponent + ".svg")
            let drawn = try runWalkscape(["map", folder.path, "-o", out.path])
            #expect(drawn.status == 0, "\(drawn.stderr)")
            return try MapCommandTests.read(out).elements.filter { $0.group == "radii" && $0.name == "circle" }
                .compactMap { $0.attributes["r"].flatMap(Double.init) }
        }
        let withStray = try radii(tail), without = try radii(TestPaths.demoTour)
        #expect(withStray.count == without.count && !without.isEmpty)
        for (a, b) in zip(withStray, without) { #expect(abs(a / b - 1) < 0.05, "\(withStray) against \(without)") }
    }

    @Test("without a route: two points whose orders look swapped are flagged")
    func swappedOrderWithoutRoute() throws {
        let dir = try TemporaryDirectory()
        // Along a line north: 0 m, 300 m, 150 m, 445 m. Points 2 and 3 are the wrong way round.
        let points = [(1, 45.0), (2, 45.0027), (3, 45.00135), (4, 45.0040)].map { order, lat in
            """
            {"id": "p\(order)", "order": \(order), "location": {"lat": \(lat), "lng": 9.0}, "triggerRadiusMeters": 30,
             "content": {"en": {"title": "P\(order)"}}}
            """
        }
        try dir.write(
            "swapped/tour.json",
            #"{"format": 1, "id": "s", "slug": "s", "languages": {"en": {"title": "S", "completionMessage": "Bye"}}, "points": ["#
                + points.joined(separator: ",") + "]}")
        let result = try runWalkscape(["lint", dir.file("swapped").path])
        #expect(result.status == 0)  // a warning: the curator may mean it
        let swaps = result.stdout.split(separator: "\n").filter { $0.contains("[order-looks-swapped]") }
        #expect(
            swaps == [
                "warning: point 2 (P2) and point 3 (P3): walking them in the other order would be 300 m shorter (445 m instead of 745 m): are their orders swapped? (add a route to check the order against it) [order-looks-swapped]"
            ])
    }

    @Test("the tour's own traces: a point a recorded walk does not trigger, and how close it came")
    func traceMissesPoint() throws {
        let dir = try TemporaryDirectory()
        let root = try PreviewCommandTests.detourTour(in: dir)  // the walk swerves 63 m around point 2
        let manifest = root.appendingPathComponent("tour.json")
        let text = try String(contentsOf: manifest, encoding: .utf8)
            .replacingOccurrences(of: #""slug": "detour","#, with: #""slug": "detour", "traces": ["walk.gpx"],"#)
        try Data(text.utf8).write(to: manifest)
        let result = try runWalkscape(["lint", root.path])
        #expect(result.status == 0)
        let misses = result.stdout.split(separator: "\n").filter { $0.hasSuffix("[trace-misses-point]") }
        #expect(
            misses == [
                "warning: walk.gpx: point 2 (P2) does not trigger on this walk: the closest fix is 63 m from it (radius 30 m) [trace-misses-point]"
            ])
    }

    @Test("a tour the loader refuses: its error, and every duplicate and missing file besides")
    func refusedTour() throws {
        let dir = try TemporaryDirectory()
        let json = """
            {"format": 1, "id": "dup", "slug": "dup", "languages": {"en": {"title": "Dup"}},
             "points": [
              {"id": "a", "order": 1, "location": {"lat": 45.0, "lng": 9.0}, "triggerRadiusMeters": 30,
               "content": {"en": {"title": "A", "audio": "media/a.mp3"}}},
              {"id": "b", "order": 1, "location": {"lat": 45.001, "lng": 9.0}, "triggerRadiusMeters": 30,
               "content": {"en": {"title": "B"}}},
              {"id": "a", "order": 2, "location": {"lat": 45.002, "lng": 9.0}, "triggerRadiusMeters": 30,
               "content": {"en": {"title": "C", "subtitles": "media/c.srt"}}}]}
            """
        try dir.write("dup/tour.json", json)
        let result = try runWalkscape(["lint", dir.file("dup").path, "--json"])
        #expect(result.status == 1)
        let findings = try JSONDecoder().decode([LintFinding].self, from: result.stdoutData)
        #expect(findings.allSatisfy { $0.severity == .error })
        #expect(findings.first?.check == "tour-folder")
        // Every problem exactly once, whether the loader or lint's own pass found it.
        let all = findings.map { ["\($0.location).\($0.message)", "\($0.location): \($0.message)"] }
        for problem in [
            "points[0].content.en.audio: media/a.mp3 does not exist",
            "points[2].content.en.subtitles: media/c.srt does not exist",
            "points[1].order: 1 is used twice (points[0] and points[1])",
            "points[2].id: a is used twice (points[0] and points[2])",
        ] {
            #expect(all.count { forms in forms.contains { $0.hasSuffix(problem) } } == 1, "\(problem) in \(all)")
        }
        #expect(findings.count == 4)
    }

    @Test("no such folder: one line, exit 66 (not found)")
    func notAFolder() throws {
        let result = try runWalkscape(["lint", "no/such/tour"])
        #expect(result.status == 66)
        #expect(result.stderr == "walkscape: no/such/tour: no such tour folder\n")
    }
}

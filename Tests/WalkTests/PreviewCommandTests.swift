import Foundation
import Playback
import Positioning
import TestSupport
import Testing
import TourModel

@testable import Walk
@testable import WalkRuntime

/// `walkscape preview`, run as the built executable on the demo tour and on small tours made here.
@Suite("walkscape preview", .serialized)
struct PreviewCommandTests {
    static let demo = TestPaths.packageRoot.appendingPathComponent("tours/demo")

    /// Trigger offsets (seconds from the first fix) of the demo walk, computed from
    /// traces/walk.nmea by scripts with GeographicLib: for each point in order, the second
    /// consecutive fix within its radius, the one outlier (t = 220 s, 478 m off) not counted.
    static let demoTriggers: [Double] = [138, 294, 403, 621, 882]
    static let demoDistances: [Double] = [27.3, 23.9, 33.8, 27.7, 34.7]
    /// Narration lengths from the WAV sample counts of make-demo-tour.py (22050 Hz), rounded to ms.
    static let englishNarration: [Double] = [13.433, 8.289, 13.312, 8.649, 9.691]

    func preview(_ arguments: [String]) throws -> (ProcessResult, PreviewReport?) {
        let result = try runWalkscape(["preview"] + arguments)
        let report = try? JSONDecoder().decode(PreviewReport.self, from: result.stdoutData)
        return (result, report)
    }

    /// The same rule, applied here to the raw GGA sentences of the trace, so the literals above
    /// are known to come from the file and not from the code under test.
    static func triggersComputedFromTrace(_ nmea: URL, tour: TourFolder) throws -> [Double] {
        var fixes: [(t: Double, c: Coordinate)] = []
        for line in try String(contentsOf: nmea, encoding: .utf8).split(whereSeparator: \.isNewline) {
            let f = line.split(separator: "*")[0].split(separator: ",", omittingEmptySubsequences: false).map(
                String.init)
            guard f[0] == "$GPGGA", f[6] != "0", f[2].count > 4 else { continue }
            let lat = Double(f[2].prefix(2))! + Double(f[2].dropFirst(2))! / 60
            let lng = Double(f[4].prefix(3))! + Double(f[4].dropFirst(3))! / 60
            let t =
                Double(f[1].prefix(2))! * 3600 + Double(f[1].dropFirst(2).prefix(2))! * 60 + Double(f[1].dropFirst(4))!
            fixes.append((t, Coordinate(latitude: lat, longitude: lng)))
        }
        let origin = fixes[0].t
        var accepted: [(t: Double, c: Coordinate)] = []
        for fix in fixes {
            // The outlier.
            if let last = accepted.last, last.c.distance(to: fix.c) > 100 * (fix.t - last.t) { continue }
            accepted.append(fix)
        }
        var result: [Double] = []
        var next = 0, streak = 0
        for fix in accepted where next < tour.points.count {
            let point = tour.points[next]
            streak = fix.c.distance(to: point.coordinate) <= point.triggerRadiusMeters ? streak + 1 : 0
            if streak == 2 {
                result.append(fix.t - origin)
                next += 1
                streak = 0
            }
        }
        return result
    }

    /// The preview shows the gain a narration plays with: a mono one held by its peak plays 3 dB
    /// higher than the stereo rule gives (its upmix takes 3 dB off each channel), and the preview
    /// said the stereo figure.
    @Test("preview gives a mono narration held by its peak the gain it plays with")
    func previewGivesAMonoNarrationItsPlayedGain() throws {
        let mono = try FixtureAudio.speech("Held back by its own peak.").mp3
        let loudness = try LoudnessMeter.measure(mono)
        var tour = northTour(points: 1)
        tour.points[0].audio = mono
        tour.points[0].loudness = loudness
        var report = WalkSimulation(tour: tour, narrations: ["p1": .seconds(3)]).run(fixes: [
            fix(0, 45.0), fix(1, 45.0),
        ])
        let target = LoudnessTarget.lufs(-5)
        report.addLoudness(of: tour, target: target)
        let shown = try #require(report.points.first?.loudness?.gainDB)
        let played = target.gainDB(for: loudness, peakOffsetDB: AudioQueue.monoUpmixDB)
        #expect(abs(shown - played) < 0.06, "\(shown) against \(played)")
        #expect(played - target.gainDB(for: loudness) > 3)
        // And the silence at either end, to a tenth: espeak-ng's speech has little of either.
        let shownLevel = try #require(report.points.first?.loudness)
        #expect(shownLevel.leadingSilence == loudness.leadingSilence.map { ($0 * 10).rounded() / 10 })
        #expect((shownLevel.leadingSilence ?? 9) < 0.5 && (shownLevel.trailingSilence ?? 9) < 0.5, "\(shownLevel)")
    }

    /// Narration long enough to be waited for is said before it is measured, the first time only:
    /// a 3-hour narration took 6 s before a walk (or a preview) began, with nothing said.
    @Test("a long narration's measuring is said before it begins, once")
    func aLongNarrationsMeasuringIsSaidOnce() throws {
        let dir = try TemporaryDirectory()
        let tour = dir.file("tour")
        try FileManager.default.copyItem(at: TestPaths.demoTour, to: tour)
        // Nine minutes of narration: the demo's first, forty times over (MP3 frames follow on).
        let first = try Data(contentsOf: tour.appendingPathComponent("media/en/01.mp3"))
        try Data(repeating: 0, count: 0).write(to: tour.appendingPathComponent("media/en/01.mp3"))
        let long = try FileHandle(forWritingTo: tour.appendingPathComponent("media/en/01.mp3"))
        for _ in 0..<40 { try long.write(contentsOf: first) }
        try long.close()
        let home = try TemporaryDirectory()
        let arguments = ["preview", tour.path, "--fast", "--no-audio"]
        let once = try runWalkscape(arguments, home: home)
        #expect(once.status == 0, "\(once.stderr)")
        #expect(
            once.stderr.contains(
                "measuring the loudness of 5 narrations (4.7 MB) before the first play (kept in the cache)"),
            "\(once.stderr)")
        let again = try runWalkscape(arguments, home: home)
        #expect(again.status == 0)
        #expect(!again.stderr.contains("measuring"), "\(again.stderr)")
    }

    @Test("--json of the demo trace: every point heard, in order, at the trigger times the trace implies")
    func demoTraceJSON() throws {
        let nmea = Self.demo.appendingPathComponent("traces/walk.nmea")
        let folder = try TourFolder.load(from: Self.demo)
        #expect(try Self.triggersComputedFromTrace(nmea, tour: folder) == Self.demoTriggers)

        let (result, report) = try preview([
            "tours/demo", "--trace", "tours/demo/traces/walk.nmea",
            "--fast", "--no-audio", "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let r = try #require(report)
        #expect(r.points.map(\.order) == [1, 2, 3, 4, 5])
        #expect(r.points.map(\.status) == Array(repeating: .heard, count: 5))
        #expect(r.points.map { $0.trigger?.offsetSeconds } == Self.demoTriggers)
        #expect(r.points.map { $0.trigger?.distanceMeters } == Self.demoDistances)
        #expect(r.points.map { $0.trigger?.type } == Array(repeating: .gps, count: 5))
        #expect(
            r.points.map { $0.trigger?.time } == [
                "2026-04-18T08:32:18.000Z", "2026-04-18T08:34:54.000Z",
                "2026-04-18T08:36:43.000Z", "2026-04-18T08:40:21.000Z",
                "2026-04-18T08:44:42.000Z",
            ])
        #expect(r.points.map { $0.audio?.durationSeconds } == Self.englishNarration)
        #expect(r.points.map { $0.queueWaitSeconds } == [0, 0, 0, 0, 0])
        #expect(r.summary.pointsHeard == 5 && r.summary.pointsTotal == 5)
        #expect(r.summary.completed)
        #expect(r.summary.endOffsetSeconds == 891.691)
        #expect(r.summary.rejectedFixes == ["implausibleJump": 1])
        // The longest silence: from the end of Ponte Vecchio (621 + 8.649) to Palazzo Pitti (882).
        #expect(r.summary.longestSilenceSeconds == 252.351)
        #expect(r.events.map(\.name) == [.tourStarted] + Array(repeating: .pointTriggered, count: 5) + [.tourCompleted])
        #expect(
            r.events.last?.properties == [
                "durationMinutes": .int(15), "pointsVisited": .int(5),
                "lastPointIndex": .int(4), "platform": .string("linux"),
            ])
        #expect(r.events.dropFirst().prefix(5).allSatisfy { $0.properties["triggerType"] == .string("gps") })
        #expect(r.timeline.contains { $0.kind == .ignoredFix && $0.offsetSeconds == 220 })
        #expect(r.timeline.contains { $0.kind == .gpsGap && $0.offsetSeconds == 556 })
    }

    /// The demo walk's first `seconds` seconds, with `burst` epochs from `burstAt` on replaced by
    /// fixes at the last point (Palazzo Pitti) with a good HDOP: a multipath burst, as receivers
    /// emit in street canyons.
    static func demoTraceWithBurst(burstAt: Int, burst: Int, seconds: Int) throws -> String {
        let text = try String(contentsOf: demo.appendingPathComponent("traces/walk.nmea"), encoding: .utf8)
        func checksummed(_ body: String) -> String {
            "$\(body)*\(String(format: "%02X", body.utf8.reduce(UInt8(0)) { $0 ^ $1 }))"
        }
        var out: [String] = []
        var second = -1
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("$") {
            if line.hasPrefix("$GPRMC") { second += 1 }
            guard second < seconds else { break }
            if second >= burstAt && second < burstAt + burst {
                guard line.hasPrefix("$GPRMC") else { continue }
                let time = String(format: "0830%02d.00", second % 60).replacingOccurrences(
                    of: "0830", with: String(format: "08%02d", 30 + second / 60))
                out.append(checksummed("GPRMC,\(time),A,4345.93600,N,01115.02400,E,0.100,0.00,180426,,,A"))
                out.append(checksummed("GPGGA,\(time),4345.93600,N,01115.02400,E,1,08,0.80,52.0,M,46.6,M,,"))
            } else {
                out.append(String(line))
            }
        }
        return out.joined(separator: "\r\n") + "\r\n"
    }

    @Test(
        "a multipath burst at the last point early in the walk triggers nothing, even under --missed play",
        arguments: [3, 10])
    func multipathBurstAtTheLastPoint(burst: Int) throws {
        let dir = try TemporaryDirectory()
        // Point 1 triggers at 138 s; at 150 s the walker is just past it, 877 m from the last point.
        let trace = try dir.write("burst.nmea", Self.demoTraceWithBurst(burstAt: 150, burst: burst, seconds: 200))
        let (result, report) = try preview(["tours/demo", "--trace", trace.path, "--json", "--missed", "play"])
        #expect(result.status == 0, "\(result.stderr)")
        let r = try #require(report)
        #expect(r.points.map(\.status) == [.heard] + Array(repeating: .notReached, count: 4))
        #expect(!r.summary.completed)
        #expect(r.summary.rejectedFixes["implausibleJump"] == burst)
        let ignored = r.timeline.filter { $0.kind == .ignoredFix }
        #expect(ignored.count == burst)
        #expect(ignored.allSatisfy { $0.text.contains("877 m away") }, "\(ignored.map(\.text))")
    }

    @Test("the GPX of the same walk gives the same triggers; Italian narration changes only the audio")
    func demoGPXInItalian() throws {
        let (result, report) = try preview([
            "tours/demo", "--trace", "tours/demo/traces/walk.gpx", "-l", "it", "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let r = try #require(report)
        #expect(r.tour.language == "it")
        #expect(r.points.map { $0.trigger?.offsetSeconds } == Self.demoTriggers)
        #expect(r.points.map(\.status) == Array(repeating: .heard, count: 5))
        #expect(r.points.map { $0.audio?.durationSeconds } == [14.419, 8.714, 13.874, 8.149, 10.671])
        #expect(r.completionMessage == "Grazie per aver camminato con noi a Firenze.")
    }

    @Test("the text report ends with the summary line")
    func demoText() throws {
        let result = try runWalkscape(["preview", "tours/demo", "--fast"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.last == "points heard 5/5, total queue wait 0.0s, longest silence 4m 12s, completed at +14:51")
        #expect(
            result.stdout.contains(
                "+02:18    ▶ 1 Piazza del Duomo triggered at 43.772648,11.255113, 27 m from the point (radius 30 m)"))
        #expect(result.stdout.contains("ignored a fix 478 m away from the walker (implausible jump)"))
    }

    /// The points table lines up by terminal columns: an emoji or a Japanese title (two columns a
    /// character) pushed every column after it one place per such character.
    @Test("the points table stays in line with emoji and wide titles")
    func wideTitlesKeepTheColumns() throws {
        let dir = try TemporaryDirectory()
        let root = dir.url.appendingPathComponent("demo")
        try FileManager.default.copyItem(at: TestPaths.demoTour, to: root)
        let file = root.appendingPathComponent("tour.json")
        let text = try String(contentsOf: file, encoding: .utf8)
            .replacingOccurrences(of: "\"Piazza del Duomo\"", with: "\"🚶🚶 Duomo\"")
            .replacingOccurrences(of: "\"Orsanmichele\"", with: "\"東京の古い寺と庭と門と塔と橋と川と山\"")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let result = try runWalkscape(["preview", root.path, "--fast", "--no-audio"])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.stdout.split(separator: "\n").map(String.init).filter {
            $0.hasPrefix("  1  ") || $0.hasPrefix("  2  ") || $0.hasPrefix("  3  ")
        }
        #expect(rows.count == 3, "\(result.stdout)")
        // Where the trigger time begins, in terminal columns, is the same on every row.
        let columns = rows.map { row in TerminalWidth.of(String(row[..<row.range(of: " +")!.lowerBound])) }
        #expect(Set(columns).count == 1, "\(rows) \(columns)")
    }

    @Test("bad input: one line, non-zero exit")
    func badInput() throws {
        let missing = try runWalkscape(["preview", "no/such/tour", "--fast"])
        #expect(missing.status == 66)
        #expect(missing.stderr == "walkscape: no/such/tour: no such tour folder\n")

        let home = try TemporaryDirectory()
        let bogus = try home.write("walk.nmea", "hello, this is not a trace\n")
        let notATrace = try runWalkscape(["preview", "tours/demo", "--trace", bogus.path, "--fast"])
        #expect(notATrace.status == 65)
        #expect(notATrace.stderr.split(separator: "\n").count == 1)

        let both = try runWalkscape(["preview", "tours/demo", "--fast", "--speed", "4"])
        #expect(both.status == 64)
        #expect(both.stderr.contains("--fast and --speed exclude each other"))

        let language = try runWalkscape(["preview", "tours/demo", "--fast", "-l", "fr"])
        #expect(language.status == 64)
        #expect(language.stderr.contains("the tour has no language 'fr' (it has en, it)"))
    }

    @Test("6. a GPX with no <time>: preview and map refuse it with the reasons, as for NMEA")
    func gpxWithoutTimesGivesItsReasons() throws {
        let home = try TemporaryDirectory()
        // The demo walk's 456 positions with their times taken out.
        let demo = try String(contentsOfFile: "tours/demo/traces/walk.gpx", encoding: .utf8)
        let untimed = demo.replacingOccurrences(of: #"<time>[^<]*</time>"#, with: "", options: .regularExpression)
        let count = untimed.components(separatedBy: "<trkpt").count - 1
        #expect(count > 400)
        let file = try home.write("untimed.gpx", untimed)
        let preview = try runWalkscape(["preview", "tours/demo", "--trace", file.path, "--fast"])
        #expect(preview.status == 65)
        #expect(
            preview.stderr == "walkscape: \(file.path): no usable position in this trace (\(count) points read; "
                + "unused: untimed \(count) (GPX points need a <time> to be walked or previewed))\n")
        let map = try runWalkscape([
            "map", "tours/demo", "--trace", file.path, "-o", home.url.appendingPathComponent("m.svg").path,
        ])
        #expect(map.status == 65)
        #expect(map.stderr.contains("unused: untimed \(count)"))
    }

    // MARK: Real time

    /// A two-point tour 150 m apart with narrations of `narration` seconds and subtitles, and a GPX
    /// walk that stands in point 1 for three seconds and reaches point 2 after two minutes.
    static func smallTour(in dir: TemporaryDirectory, narration: Double = 1.0) throws -> URL {
        let tone = try FixtureAudio.tone(seconds: narration)
        let root = dir.url.appendingPathComponent("small")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("media"), withIntermediateDirectories: true)
        for n in 1...2 {
            try FileManager.default.copyItem(at: tone.mp3, to: root.appendingPathComponent("media/\(n).mp3"))
            let end = String(format: "00:00:00,%03d", Int(narration * 900))
            try Data("1\n00:00:00,000 --> \(end)\nSubtitle of point \(n)\n\n".utf8)
                .write(to: root.appendingPathComponent("media/\(n).srt"))
        }
        let tourJSON = """
            {"format": 1, "id": "small", "slug": "small", "languages": {"en": {"title": "Small", "completionMessage": "Bye"}},
             "points": [
              {"id": "a", "order": 1, "location": {"lat": 45.0, "lng": 9.0}, "triggerRadiusMeters": 30,
               "content": {"en": {"title": "First", "audio": "media/1.mp3", "subtitles": "media/1.srt"}}},
              {"id": "b", "order": 2, "location": {"lat": 45.00135, "lng": 9.0}, "triggerRadiusMeters": 30,
               "content": {"en": {"title": "Second", "audio": "media/2.mp3", "subtitles": "media/2.srt"}}}]}
            """
        try Data(tourJSON.utf8).write(to: root.appendingPathComponent("tour.json"))
        var gpx = #"<?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
        for s in 0...120 {
            let lat = 45.0 + Double(max(0, s - 3)) * 1.3 / 111_132.95
            let time = Date(timeIntervalSince1970: 1_776_500_000 + Double(s))
            gpx += #"<trkpt lat="\#(lat)" lon="9.0"><time>\#(ISO8601.format(time))</time></trkpt>"#
        }
        gpx += "</trkseg></trk></gpx>\n"
        try Data(gpx.utf8).write(to: root.appendingPathComponent("walk.gpx"))
        return root
    }

    /// Three points 150 m apart due north, one-second narrations; the walker swerves 63 m east
    /// around point 2 (never inside its radius) and walks on into point 3.
    static func detourTour(in dir: TemporaryDirectory) throws -> URL {
        let tone = try FixtureAudio.tone(seconds: 1.0)
        let root = dir.url.appendingPathComponent("detour")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("media"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: tone.mp3, to: root.appendingPathComponent("media/tone.mp3"))
        let points = (1...3).map { n in
            """
            {"id": "p\(n)", "order": \(n), "location": {"lat": \(45.0 + Double(n - 1) * 0.00135), "lng": 9.0},
             "triggerRadiusMeters": 30, "content": {"en": {"title": "P\(n)", "audio": "media/tone.mp3"}}}
            """
        }
        try Data(
            #"{"format": 1, "id": "detour", "slug": "detour", "languages": {"en": {"title": "Detour"}}, "points": ["#
                .utf8
                + Data(points.joined(separator: ",").utf8) + Data("]}".utf8)
        ).write(to: root.appendingPathComponent("tour.json"))
        var gpx = #"<?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
        for t in 0...250 {
            let s = Double(max(0, t - 3)) * 1.3  // metres north
            let east = 63 * min(1, max(0, (s - 60) / 30)) * min(1, max(0, (240 - s) / 30))
            let lat = 45.0 + s / 111_132.95, lng = 9.0 + east / 78_846.8
            let time = Date(timeIntervalSince1970: 1_776_500_000 + Double(t))
            gpx += #"<trkpt lat="\#(lat)" lon="\#(lng)"><time>\#(ISO8601.format(time))</time></trkpt>"#
        }
        try Data((gpx + "</trkseg></trk></gpx>\n").utf8).write(to: root.appendingPathComponent("walk.gpx"))
        return root
    }

    @Test("a point passed by: played first under --missed play, marked under skip, waited for under strict")
    func missedPointPolicies() throws {
        let dir = try TemporaryDirectory()
        let root = try Self.detourTour(in: dir)
        let trace = root.appendingPathComponent("walk.gpx").path
        func run(_ policy: String) throws -> PreviewReport {
            let (result, report) = try preview([root.path, "--trace", trace, "--json", "--missed", policy])
            #expect(result.status == 0, "\(result.stderr)")
            return try #require(report)
        }
        let play = try run("play")
        #expect(play.points.map(\.status) == [.heard, .heard, .heard])
        #expect(play.points.map { $0.trigger?.type } == [.gps, .caughtUp, .gps])
        #expect(play.points.map { $0.trigger?.offsetSeconds } == [1, 212, 212])
        #expect(play.points.map { $0.audio?.startOffsetSeconds } == [1, 212, 213])
        #expect(play.points.map(\.queueWaitSeconds) == [0, 0, 1])
        #expect(play.summary.totalQueueWaitSeconds == 1)
        #expect(play.summary.completed)

        let skip = try run("skip")
        #expect(skip.points.map(\.status) == [.heard, .missed, .heard])
        #expect(skip.summary.pointsHeard == 2)
        #expect(skip.summary.completed)
        #expect(skip.summaryLine.hasPrefix("points heard 2/3"))
        #expect(skip.events.last?.properties["pointsVisited"] == .int(2))

        let strict = try run("strict")
        #expect(strict.points.map(\.status) == [.heard, .notReached, .notReached])
        #expect(!strict.summary.completed)
        #expect(strict.events.last?.name == .tourAbandoned)
        #expect(
            strict.events.last?.properties == [
                "durationMinutes": .int(4), "pointsVisited": .int(1),
                "lastPointIndex": .int(0), "platform": .string("linux"),
            ])
        #expect(strict.timeline.last?.kind == .abandoned)
    }

    @Test("a trace of another place: nothing triggers, and the report says how far away it was")
    func traceOfAnotherPlace() throws {
        let dir = try TemporaryDirectory()
        let root = try Self.detourTour(in: dir)  // a walk near Milan, previewed against Florence
        let result = try runWalkscape([
            "preview", "tours/demo", "--trace", root.appendingPathComponent("walk.gpx").path, "--fast",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("of point 1 (radius 30 m): is this a trace of this tour?"))
        #expect(result.stdout.contains("  1  Piazza del Duomo               not reached"))
        #expect(
            result.stdout.hasSuffix("points heard 0/5, total queue wait 0.0s, longest silence 4m 10s, not completed\n"))
    }

    @Test("--speed without sound: walking is fast-forwarded, narration is not, subtitles show")
    func realTimeWithoutSound() throws {
        let dir = try TemporaryDirectory()
        let root = try Self.smallTour(in: dir, narration: 0.5)
        let started = ContinuousClock.now
        let result = try runWalkscape([
            "preview", root.path, "--trace", root.appendingPathComponent("walk.gpx").path,
            "--speed", "1000", "--no-audio",
        ])
        let elapsed = ContinuousClock.now - started
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("“Subtitle of point 1”"))
        #expect(result.stdout.contains("“Subtitle of point 2”"))
        #expect(result.stdout.contains("points heard 2/2"))
        // One second of narration at 1x plus about 110 s of walking at 1000x (~0.11 s); the whole
        // at 1000x would take a tenth of a second.
        #expect(elapsed > .milliseconds(950), "took \(elapsed)")
        #expect(elapsed < .seconds(12), "took \(elapsed)")
    }

    @Test("--speed with narration that cannot play: announced with its text, and the walk stays fast-forwarded")
    func realTimeWithAnnouncedPoints() throws {
        let dir = try TemporaryDirectory()
        let root = try Self.smallTour(in: dir)
        // A web server's error page saved under the narration's name.
        try FileManager.default.removeItem(at: root.appendingPathComponent("media/1.mp3"))
        try Data("<html><body>502 Bad Gateway</body></html>\n".utf8).write(
            to: root.appendingPathComponent("media/1.mp3"))
        let tourJSON = """
            {"format": 1, "id": "small", "slug": "small", "languages": {"en": {"title": "Small"}},
             "points": [
              {"id": "a", "order": 1, "location": {"lat": 45.0, "lng": 9.0}, "triggerRadiusMeters": 30,
               "content": {"en": {"title": "First", "description": "Text of one.", "audio": "media/1.mp3"}}},
              {"id": "b", "order": 2, "location": {"lat": 45.00135, "lng": 9.0}, "triggerRadiusMeters": 30,
               "content": {"en": {"title": "Second", "description": "Text of two."}}}]}
            """
        try Data(tourJSON.utf8).write(to: root.appendingPathComponent("tour.json"))
        let started = ContinuousClock.now
        let result = try runWalkscape([
            "preview", root.path, "--trace", root.appendingPathComponent("walk.gpx").path,
            "--speed", "400", "--no-audio",
        ])
        let elapsed = ContinuousClock.now - started
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("ℹ First announced without audio ("))
        #expect(result.stdout.contains("ℹ Second announced without audio (no audio in en)"))
        #expect(result.stdout.contains("             Text of one."))
        #expect(result.stdout.contains("             Text of two."))
        #expect(result.stdout.contains("points heard 0/2 (+2 announced without audio)"))
        #expect(elapsed < .seconds(15), "walking after a failed narration must stay at 400x; took \(elapsed)")
    }

    @Test("--speed with sound plays the narration through ALSA (the null device) and waits for it")
    func realTimeWithSound() throws {
        let dir = try TemporaryDirectory()
        let root = try Self.smallTour(in: dir, narration: 0.5)
        let result = try runWalkscape([
            "preview", root.path, "--trace", root.appendingPathComponent("walk.gpx").path,
            "--speed", "1000", "--audio-device", "null",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let order = [
            "♪ First plays", "“Subtitle of point 1”", "◼ First ends", "♪ Second plays", "◼ Second ends",
            "✓ tour completed: Bye",
        ].map { key in lines.firstIndex { $0.contains(key) } ?? -1 }
        #expect(order == order.sorted() && !order.contains(-1), "\(result.stdout)")
    }

    /// Ctrl-C in the middle of a real-time preview: the timeline stops where it was, no report or
    /// summary follows, exit 130. Also when the preview was started with SIGINT ignored (from a
    /// script's `trap '' INT`, or a tool that ignores it for its children), where it used to play
    /// the rest of the timeline and exit 0.
    @Test("Ctrl-C stops a --speed preview at once: exit 130, nothing more printed", arguments: [false, true])
    func interruptedPreviewStops(startedIgnoringSIGINT: Bool) async throws {
        let dir = try TemporaryDirectory()
        let root = try Self.smallTour(in: dir)
        let command = [
            TestPaths.walkscape.path, "preview", root.path, "--trace", root.appendingPathComponent("walk.gpx").path,
            "--speed", "2", "--no-audio",
        ]
        let child =
            startedIgnoringSIGINT
            ? try ChildProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "trap '' INT; exec \"$@\"", "sh"] + command)
            : try ChildProcess(TestPaths.walkscape, Array(command.dropFirst()))
        #expect(await child.waitForOutput("First plays", timeout: 10))
        child.signal(SIGINT)
        let code = await child.wait(timeout: 10)
        #expect(code == 130, "output: \(child.output)")
        #expect(!child.output.contains("Second"), "the walk to point 2 takes a minute at 2x: \(child.output)")
        #expect(!child.output.contains("points heard"))
    }

    @Test("a sound device and no sound at once is a usage error, as for play and walk")
    func audioDeviceAndNoAudioExcludeEachOther() throws {
        let result = try runWalkscape([
            "preview", "tours/demo", "--speed", "10", "--no-audio", "--audio-device", "null",
        ])
        #expect(result.status == 64)
        #expect(result.stderr.contains("choose one of --audio-device and --no-audio"), "\(result.stderr)")
    }

    @Test("with no such sound device: one line that says what to do, exit 69")
    func noSoundCard() throws {
        let result = try runWalkscape(["preview", "tours/demo", "--speed", "10", "--audio-device", "hw:7,7"])
        #expect(result.status == 69)
        #expect(result.stderr.hasPrefix("walkscape: no sound card"))
        #expect(result.stderr.contains("--no-audio"))
    }
}

import Foundation
import Positioning
import TestSupport
import Testing
import TourModel

/// `walkscape trace`, run as the built executable.
@Suite struct TraceCommandTests {
    /// Ten epochs walking north at 1.4 m/s, one wild outlier, one bad checksum, one proprietary.
    static func recording() -> String {
        var lines: [String] = ["# recorded on a test bench"]
        let start = Coordinate(latitude: 44.4939, longitude: 11.3426)
        for i in 0..<10 {
            if i == 5 {
                // An outlier 2 km east, stamped between epochs 4 and 5.
                lines.append(gga("100004.50", start.destination(distance: 2000, bearing: 90)))
            }
            let c = start.destination(distance: Double(i) * 1.4, bearing: 0)
            lines.append(gga(String(format: "1000%02d.00", i), c))
            lines.append(
                sentence(
                    String(
                        format: "GPRMC,1000%02d.00,A,%@,N,%@,E,2.72,0.0,211126,,,A", i,
                        ddmm(c.latitude, 2), ddmm(c.longitude, 3))))
        }
        lines.append("$GPGGA,100010.00,4429.6340,N,01120.5560,E,1,09,0.9,54.0,M,46.9,M,,*00")
        lines.append(sentence("PGRME,15.0,M,22.5,M,27.0,M"))
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func ddmm(_ v: Double, _ width: Int) -> String {
        let d = Int(v)
        return String(format: "%0\(width)d%09.6f", d, (v - Double(d)) * 60)
    }

    static func gga(_ time: String, _ c: Coordinate) -> String {
        sentence("GPGGA,\(time),\(ddmm(c.latitude, 2)),N,\(ddmm(c.longitude, 3)),E,1,09,0.8,54.0,M,46.9,M,,")
    }

    /// A walk across 180° (Taveuni, Fiji): its bounds are the few metres it spans, west of the line
    /// to east of it (west > east, as a GeoJSON bbox across the antimeridian), not the globe.
    @Test func theBoundsOfAWalkAcrossTheAntimeridianAreItsFewMetres() throws {
        let folder = try TemporaryDirectory()
        let metresPerDegree = 111_320 * cos(16.8 * .pi / 180)
        var gpx = #"<?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
        for second in 0..<20 {
            let lng = Coordinate.wrappedLongitude(179.9998 + Double(second) * 1.4 / metresPerDegree)
            let stamp = Date(timeIntervalSince1970: 1_776_500_000 + Double(second)).formatted(.iso8601)
            gpx += #"<trkpt lat="-16.8" lon="\#(String(format: "%.7f", lng))"><time>\#(stamp)</time></trkpt>"#
        }
        let file = try folder.write("taveuni.gpx", gpx + "</trkseg></trk></gpx>\n")
        let result = try runWalkscape(["trace", file.path, "--json"], home: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
        let box = try #require(json["boundingBox"] as? [String: Double])
        #expect(abs(box["west"]! - 179.9998) < 1e-6, "\(box)")
        #expect(box["east"]! < -179.999 && box["east"]! > -180, "\(box)")
        // About 19 steps of 1.4 m (steps under the error estimate are not counted), not 40,000 km.
        #expect((20...30).contains(json["distanceMeters"] as? Double ?? 0), "\(json)")
    }

    @Test func summarisesARecordingAsJSON() throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("walk.log", Self.recording())
        let result = try runWalkscape(["trace", file.path, "--json"], home: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
        #expect(json["format"] as? String == "nmea")
        #expect(json["fixes"] as? Int == 11)
        #expect(json["acceptedFixes"] as? Int == 10)
        #expect(json["rejectedFixes"] as? [String: Int] == ["implausibleJump": 1])
        #expect(json["rejectedRecords"] as? [String: Int] == ["badChecksum": 1, "proprietary": 1])
        #expect(json["records"] as? Int == 23)
        #expect(json["durationSeconds"] as? Double == 9)
        #expect(json["start"] as? String == "2026-11-21T10:00:00.000Z")  // every --json writes milliseconds
        let distance = try #require(json["distanceMeters"] as? Double)
        #expect(abs(distance - 12.6) < 0.01)
        let box = try #require(json["boundingBox"] as? [String: Double])
        #expect(abs(box["south"]! - 44.4939) < 1e-6)
        #expect(abs(box["east"]! - 11.3426) < 1e-6)
        let accuracy = try #require(json["accuracy"] as? [String: Any])
        #expect(accuracy["medianMeters"] as? Double == 4)  // HDOP 0.8 x 5 m
        #expect((accuracy["buckets"] as? [[String: Any]])?.first?["count"] as? Int == 11)
    }

    /// A recording cut after its first RMC (`gpspipe -r` started mid-epoch, a receiver sending RMC
    /// every fifth epoch): its first epochs have no date, and it lasted 56 years (from 1970-01-01).
    @Test func aRecordingThatBeginsBeforeItsFirstDateLastsItsOwnLength() throws {
        let folder = try TemporaryDirectory()
        var lines = Self.recording().components(separatedBy: "\r\n")
        let first = try #require(lines.firstIndex { $0.hasPrefix("$GPRMC") })
        lines.remove(at: first)
        let file = try folder.write("walk.log", lines.joined(separator: "\r\n"))
        let result = try runWalkscape(["trace", file.path, "--json"], home: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
        #expect(json["durationSeconds"] as? Double == 9)
        #expect(json["start"] as? String == "2026-11-21T10:00:00.000Z")
    }

    @Test func summarisesARecordingAsText() throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("walk.log", Self.recording())
        let result = try runWalkscape(["trace", file.path], home: folder)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "walk.log (NMEA 0183)")
        #expect(lines.contains("  duration   0:00:09 (2026-11-21T10:00:00Z to 2026-11-21T10:00:09Z)"))
        #expect(lines.contains("  fixes      11 (10 accepted; dropped: implausibleJump 1)"))
        #expect(lines.contains("  sentences  23 (unused: badChecksum 1, proprietary 1)"))
        #expect(lines.contains("  distance   13 m"))
    }

    @Test func refusesAFileThatIsNotATrace() throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("notes.txt", "hello\n")
        let result = try runWalkscape(["trace", file.path], home: folder)
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr
                == "walkscape: \(file.path): not an NMEA 0183 or GPX trace (no `$` sentence or `<gpx` element near the start)\n"
        )
    }

    @Test func refusesAMissingFileAndABadBound() throws {
        let folder = try TemporaryDirectory()
        let missing = try runWalkscape(["trace", folder.file("nope.nmea").path], home: folder)
        #expect(missing.status == 66)
        #expect(missing.stderr.hasSuffix("nope.nmea: cannot open (No such file or directory)\n"))
        let file = try folder.write("walk.log", Self.recording())
        let bad = try runWalkscape(["trace", file.path, "--max-error", "0"], home: folder)
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--max-error must be between 0.1 and 10000 metres, not 0"))
    }

    @Test func aTraceWithoutAUsablePositionIsADataErrorAfterItsSummary() throws {
        let folder = try TemporaryDirectory()
        // A GPX whose points all lack a time: read, counted, and nothing to walk with.
        let untimed = try folder.write(
            "untimed.gpx", #"<gpx><trk><trkseg><trkpt lat="43.77" lon="11.25"/></trkseg></trk></gpx>"#)
        let r = try runWalkscape(["trace", untimed.path], home: folder)
        #expect(r.status == 65)
        #expect(r.stdout.contains("no accepted fix"))
        #expect(
            r.stderr
                == "walkscape: \(untimed.path): no usable position in this trace (1 points read; unused: untimed 1 "
                + "(GPX points need a <time> to be walked or previewed))\n")
        // Fixes, but none good enough for the bound asked for.
        let file = try folder.write("walk.log", Self.recording())
        let strict = try runWalkscape(["trace", file.path, "--max-error", "0.1"], home: folder)
        #expect(strict.status == 65)
        #expect(strict.stderr.hasPrefix("walkscape: \(file.path): no fix passes the quality filter ("))
    }

    @Test func anAbsurdHDOPIsSummarisedNotTrappedOn() throws {
        let folder = try TemporaryDirectory()
        let gpx = try folder.write(
            "walk.gpx",
            #"<gpx><trkpt lat="43.77" lon="11.25"><time>2026-04-18T08:30:00Z</time><hdop>1</hdop></trkpt>"#
                + #"<trkpt lat="43.77001" lon="11.25"><time>2026-04-18T08:30:01Z</time><hdop>1e300</hdop></trkpt></gpx>"#
        )
        let r = try runWalkscape(["trace", gpx.path], home: folder)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("2 (1 accepted; dropped: tooInaccurate 1)"), "\(r.stdout)")
    }

    @Test func namespacePrefixedGPXIsReadNotSilentlyEmpty() throws {
        let folder = try TemporaryDirectory()
        let gpx = try folder.write(
            "walk.gpx",
            #"<?xml version="1.0"?><gpx:gpx xmlns:gpx="http://www.topografix.com/GPX/1/1">"#
                + #"<gpx:trk><gpx:trkseg><gpx:trkpt lat="43.77" lon="11.25"><gpx:time>2026-04-18T08:30:00Z</gpx:time></gpx:trkpt>"#
                + #"<gpx:trkpt lat="43.77001" lon="11.25"><gpx:time>2026-04-18T08:30:01Z</gpx:time></gpx:trkpt>"#
                + "</gpx:trkseg></gpx:trk></gpx:gpx>")
        let r = try runWalkscape(["trace", gpx.path, "--json"], home: folder)
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        #expect(summary["fixes"] as? Int == 2)
        #expect(summary["acceptedFixes"] as? Int == 2)
    }
}

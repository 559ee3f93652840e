import Foundation
import Positioning
import TestSupport
import Testing
import TourModel

@Suite struct TraceFileTests {
    static let gpx = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="phone" xmlns="http://www.topografix.com/GPX/1/1">
          <metadata><time>2026-04-18T08:00:00Z</time></metadata>
          <wpt lat="43.7700" lon="11.2500"><name>start, no time</name></wpt>
          <wpt lat="43.7701" lon="11.2501"><time>2026-04-18T08:29:59Z</time><name>timed waypoint</name></wpt>
          <trk><name>walk</name><trkseg>
            <trkpt lat="43.773192" lon="11.255636"><ele>51.2</ele><time>2026-04-18T08:30:00Z</time><hdop>1.2</hdop><sat>9</sat></trkpt>
            <trkpt lon='11.255700' lat='43.773250'>
              <ele>51.0</ele>
              <time>2026-04-18T10:30:01.500+02:00</time>
              <fix>2d</fix>
              <extensions><speed>1.4</speed></extensions>
            </trkpt>
            <trkpt lat="43.7733" lon="11.2558"><time>2026-04-18T08:30:03Z</time><fix>none</fix></trkpt>
            <trkpt lat="95.0" lon="11.2558"><time>2026-04-18T08:30:04Z</time></trkpt>
            <trkpt lat="43.7734" lon="11.2559"><time>yesterday</time></trkpt>
          </trkseg></trk>
          <rte><rtept lat="43.7735" lon="11.2560"><time>2026-04-18T08:30:05Z</time></rtept></rte>
        </gpx>
        """

    @Test func readsTimedPointsOfEveryKindWithTheirChildren() throws {
        let folder = try TemporaryDirectory()
        let file = try TraceFile(url: folder.write("walk.txt", Self.gpx))
        #expect(file.format == .gpx)
        var iterator = file.fixes().makeIterator()
        var fixes: [Fix] = []
        while let f = iterator.next() { fixes.append(f) }
        try #require(fixes.count == 5)
        #expect(fixes.map(\.coordinate.latitude) == [43.7701, 43.773192, 43.773250, 43.7733, 43.7735])
        let t0 = fixes[1].time
        #expect(t0 == Date(timeIntervalSince1970: 1_776_501_000))  // 2026-04-18T08:30:00Z
        #expect(fixes[1].altitude == 51.2)
        #expect(fixes[1].hdop == 1.2)
        #expect(fixes[1].horizontalError == 1.2 * HorizontalError.hdopFactor)
        #expect(fixes[1].satellites == 9)
        #expect(fixes[1].mode == .threeD)
        #expect(fixes[1].source == .gpx)
        #expect(fixes[2].time.timeIntervalSince(t0) == 1.5)  // +02:00 offset and a fraction
        #expect(fixes[2].mode == .twoD)
        #expect(fixes[2].speed == 1.4)
        #expect(fixes[3].mode == .noFix)
        #expect(fixes[0].mode == .twoD)  // no elevation
        let stats = iterator.statistics
        #expect(stats.records == 8)
        #expect(stats.fixes == 5)
        #expect(stats.rejected == ["untimed": 1, "malformed": 2])
        #expect(file.statistics == stats)
    }

    func fixes(_ gpx: String, bufferSize: Int = 1 << 18) throws -> ([Fix], TraceStatistics) {
        let folder = try TemporaryDirectory()
        let file = try TraceFile(url: folder.write("walk.gpx", gpx), bufferSize: bufferSize)
        var iterator = file.fixes().makeIterator()
        var fixes: [Fix] = []
        while let f = iterator.next() { fixes.append(f) }
        return (fixes, iterator.statistics)
    }

    @Test func namespacePrefixedGPXReadsLikeThePlainOne() throws {
        // Every element of the sample with a `gpx:` prefix bound to the GPX namespace.
        let prefixed = Self.gpx
            .replacingOccurrences(
                of:
                    #"<(/?)(gpx|metadata|wpt|name|trk|trkseg|trkpt|rte|rtept|ele|time|hdop|sat|fix|speed|extensions)([ >])"#,
                with: "<$1gpx:$2$3", options: .regularExpression
            )
            .replacingOccurrences(of: #"xmlns="http"#, with: #"xmlns:gpx="http"#)
        #expect(prefixed.contains("<gpx:trkpt lat=") && prefixed.contains("</gpx:time>"))
        let (plain, plainStats) = try fixes(Self.gpx)
        for bufferSize in [1 << 18, 64] {
            let (read, stats) = try fixes(prefixed, bufferSize: bufferSize)
            #expect(read == plain, "buffer \(bufferSize)")
            #expect(stats == plainStats)
        }
        // The root's own prefix counts too, with GPX 1.0's namespace.
        let own =
            #"<g:gpx xmlns:g="http://www.topografix.com/GPX/1/0"><g:trk><g:trkseg>"#
            + #"<g:trkpt lat="43.77" lon="11.25"><g:time>2026-04-18T08:30:00Z</g:time></g:trkpt>"#
            + "</g:trkseg></g:trk></g:gpx>"
        #expect(try fixes(own).0.count == 1)
    }

    @Test func elementsOfOtherNamespacesAreNotGPXs() throws {
        let gpx =
            #"<gpx xmlns="http://www.topografix.com/GPX/1/1" xmlns:ext="http://example.org/ext">"#
            + #"<ext:trkpt lat="1" lon="1"><time>2026-04-18T08:00:00Z</time></ext:trkpt>"#
            + #"<trkpt lat="43.77" lon="11.25"><extensions><ext:time>2026-04-18T09:00:00Z</ext:time></extensions>"#
            + #"<time>2026-04-18T08:30:00Z</time></trkpt></gpx>"#
        let (read, stats) = try fixes(gpx)
        #expect(read.map(\.coordinate.latitude) == [43.77])
        #expect(read.first?.time == Date(timeIntervalSince1970: 1_776_501_000))
        #expect(stats.records == 1)
    }

    @Test func aTimeInCDATAOrWithAttributesIsRead() throws {
        let gpx =
            #"<gpx><trk><trkseg>"#
            + #"<trkpt lat="43.77" lon="11.25"><time><![CDATA[2026-04-18T08:30:00Z]]></time></trkpt>"#
            + #"<trkpt lat="43.78" lon="11.25"><time > <![CDATA[ 2026-04-18T08:30:01Z ]]> </time ></trkpt>"#
            + #"<trkpt lat="43.79" lon="11.25"><time source="gps">2026-04-18T08:30:02Z</time></trkpt>"#
            + #"<trkpt lat="43.80" lon="11.25"><timestamp>2026-04-18T08:30:03Z</timestamp></trkpt>"#
            + "</trkseg></trk></gpx>"
        let (read, stats) = try fixes(gpx)
        #expect(read.map { $0.time.timeIntervalSince1970 } == [1_776_501_000, 1_776_501_001, 1_776_501_002])
        #expect(stats.rejected == ["untimed": 1])
    }

    @Test func impossibleGPXTimesAreMalformedNeverNormalised() throws {
        func time(_ text: String) throws -> Date? {
            let (read, _) = try fixes(#"<gpx><trkpt lat="43.77" lon="11.25"><time>\#(text)</time></trkpt></gpx>"#)
            return read.first?.time
        }
        for impossible in [
            "2026-02-31T08:00:00Z", "2026-02-29T08:00:00Z", "2026-04-31T08:00:00Z", "2026-04-18T24:00:00Z",
            "2026-04-18T12:60:00Z", "2026-04-18T12:30:60Z", "2026-04-18T12:30:00+25:00",
            "2026-04-18T12:30:00+01:75", "2026-04-18T12:30:00.Z",
        ] {
            #expect(try time(impossible) == nil, "\(impossible)")
        }
        #expect(try time("2024-02-29T08:00:00Z") == Date(timeIntervalSince1970: 1_709_193_600))
        // A leap second is 23:59:60 UTC, in whatever zone it is written; POSIX counts it as the next 00:00:00.
        #expect(try time("2016-12-31T23:59:60Z") == Date(timeIntervalSince1970: 1_483_228_800))
        #expect(try time("2017-01-01T00:59:60+01:00") == Date(timeIntervalSince1970: 1_483_228_800))
    }

    @Test func streamsALongGPXAcrossBufferBoundaries() throws {
        let folder = try TemporaryDirectory()
        var text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\"><trk><trkseg>\n"
        let count = 20_000  // about 2 MB: many refills of the 256 KiB buffer
        for i in 0..<count {
            text +=
                "<trkpt lat=\"\(43.0 + Double(i) * 1e-6)\" lon=\"11.0\"><time>2026-04-18T\(String(format: "%02d:%02d:%02d", 8 + i / 3600, i / 60 % 60, i % 60))Z</time></trkpt>\n"
        }
        text += "</trkseg></trk></gpx>\n"
        let file = try TraceFile(url: folder.write("long.gpx", text))
        var n = 0
        var last: Fix?
        for fix in file.fixes() {
            #expect(abs(fix.coordinate.latitude - (43.0 + Double(n) * 1e-6)) < 1e-12)
            n += 1
            last = fix
        }
        #expect(n == count)
        #expect(last != nil)
    }

    /// Found by fuzz-nmea: a huge `<sat>` trapped converting to `Int`; a negative `<hdop>` gave
    /// a negative error estimate.
    @Test func absurdGPXNumbersReadAsAbsent() throws {
        let folder = try TemporaryDirectory()
        let text = """
            <gpx><trk><trkseg>
            <trkpt lat="43.77" lon="11.25"><time>2026-04-18T08:30:00Z</time><sat>1e300</sat><ele>inf</ele><hdop>nan</hdop><speed>-1e999</speed></trkpt>
            <trkpt lat="nan" lon="11.25"><time>2026-04-18T08:30:01Z</time></trkpt>
            <trkpt lat="43.77" lon="11.25"><time>2026-04-18T08:30:02Z</time><hdop>-0.8</hdop><speed>-1</speed><course>-5</course></trkpt>
            </trkseg></trk></gpx>
            """
        let fixes = Array(try TraceFile(url: folder.write("absurd.gpx", text)).fixes())
        try #require(fixes.count == 2)
        #expect(fixes[1].horizontalError == nil)
        #expect(fixes[1].speed == nil)
        #expect(fixes[1].track == nil)
        #expect(fixes[0].satellites == nil)
        #expect(fixes[0].altitude == nil)
        #expect(fixes[0].hdop == nil)
        #expect(fixes[0].horizontalError == nil)
        #expect(fixes[0].speed == nil)
    }

    @Test func tinyReadBuffersGiveTheSameGPXFixes() throws {
        let folder = try TemporaryDirectory()
        let url = try folder.write("walk.gpx", Self.gpx)
        for size in [16, 50, 100, 333] {
            let file = try TraceFile(url: url, bufferSize: size)
            #expect(Array(file.fixes()) == Array(try TraceFile(url: url).fixes()), "buffer \(size)")
        }
    }

    @Test func detectsTheFormatFromTheContentNotTheName() throws {
        let folder = try TemporaryDirectory()
        let nmea = sentence("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,") + "\r\n"
        #expect(try TraceFile(url: folder.write("looks.gpx", nmea)).format == .nmea)
        #expect(try TraceFile(url: folder.write("comment.log", "# Name: x\n" + nmea)).format == .nmea)
        #expect(try TraceFile(url: folder.write("noise.bin", "\u{1}\u{2}\u{3}" + nmea)).format == .nmea)
        #expect(try TraceFile(url: folder.write("bom.nmea", "\u{FEFF}" + Self.gpx)).format == .gpx)
    }

    @Test func refusesFilesThatAreNotTraces() throws {
        let folder = try TemporaryDirectory()
        let kml = try folder.write("walk.kml", "<?xml version=\"1.0\"?><kml><Placemark/></kml>")
        #expect(throws: PositioningError.self) { try TraceFile(url: kml) }
        let notes = try folder.write("notes.txt", "just some notes\n")
        do {
            _ = try TraceFile(url: notes)
            Issue.record("accepted a text file")
        } catch {
            #expect(
                error.message.hasSuffix(
                    "notes.txt: not an NMEA 0183 or GPX trace (no `$` sentence or `<gpx` element near the start)"))
            #expect(error.exitCode == 65)
        }
        let missing = folder.file("missing.nmea")
        do {
            _ = try TraceFile(url: missing)
            Issue.record("opened a missing file")
        } catch {
            #expect(error.message.hasSuffix("missing.nmea: cannot open (No such file or directory)"))
            #expect(error.exitCode == 66)
        }
        #expect(throws: PositioningError.self) { try TraceFile(url: folder.write("empty.nmea", "")) }
        #expect(throws: PositioningError("\(folder.path): is a folder, not a file", exitCode: 66)) {
            try TraceFile(url: folder.url)
        }
        #expect(
            throws: PositioningError(
                "/dev/null: is a character device, not a regular file (save the trace to a file first)", exitCode: 66)
        ) {
            try TraceFile(url: URL(fileURLWithPath: "/dev/null"))
        }
    }

    @Test func nmeaStatisticsArriveAfterIteration() throws {
        let folder = try TemporaryDirectory()
        let good = sentence("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        let text = [
            good, "$GPGGA,123520,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*00", sentence("PGRME,1,M"), "",
        ]
        .joined(separator: "\n")
        let file = try TraceFile(url: folder.write("s.nmea", text))
        #expect(file.statistics == nil)
        let stats = file.forEachFix { _ in }
        #expect(stats.records == 3)
        #expect(stats.fixes == 1)
        #expect(stats.rejected == ["badChecksum": 1, "proprietary": 1])
        #expect(file.statistics == stats)
    }
}

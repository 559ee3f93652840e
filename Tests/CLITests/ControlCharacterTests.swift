import Foundation
import TestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Text from a tour (tour.json, SRT, a trace's name) is data, not terminal commands: escape
/// sequences and other control characters never reach a terminal raw, and never break the SVG.
@Suite("control characters in a tour's text", .serialized)
struct ControlCharacterTests {
    /// OSC (set the window title), CSI (clear the screen, colours), BEL, CR, and the 8-bit CSI
    /// (U+009B) and NEL (U+0085) that some terminals obey; U+FFFE is not allowed in XML.
    static let hostile = "\u{1B}]0;owned\u{07}\u{1B}[2J\u{1B}[31mred\r\u{9B}31m\u{85}\u{7F}\u{FFFE}"

    /// A tour with the hostile text in every field a command prints, subtitles that carry raw ESC
    /// and 8-bit CSI bytes (not UTF-8, so read as Latin-1), and a trace whose file name has an ESC.
    static func hostileTour(in dir: TemporaryDirectory) throws -> TourBuilder {
        var tour = try TourBuilder(in: dir)
        tour.title = "Walk" + hostile
        tour.completionMessage = "Bye" + hostile
        tour.pointTitles = ["One" + hostile, "Two" + hostile]
        tour.pointDescription = "Here" + hostile
        let traceName = "traces/walk\u{1B}[2J.gpx"
        try FileManager.default.moveItem(at: tour.file("traces/walk.gpx"), to: tour.file(traceName))
        tour.traces = [traceName]
        var srt = Data("1\n00:00:00,100 --> 00:00:00,800\nHello ".utf8)
        srt += Data([0x1B, 0x5B, 0x32, 0x4A, 0x9B, 0x33, 0x31, 0x6D, 0x07]) + Data(" there\n".utf8)
        try srt.write(to: tour.file("media/one.srt"))
        try Data("1\nnot a timing \u{1B}]0;owned\u{07} line\nx\n".utf8).write(to: tour.file("media/bad.srt"))
        try tour.write()
        return tour
    }

    /// The bytes a terminal would act on: C0 controls other than the newline, DEL, and C1
    /// controls (U+0080...U+009F, two bytes in UTF-8).
    static func controls(in data: Data) -> [String] {
        var found: [String] = []
        let bytes = [UInt8](data)
        for (i, b) in bytes.enumerated() {
            if (b < 0x20 && b != 0x0A) || b == 0x7F { found.append(String(format: "0x%02X at %d", b, i)) }
            if b == 0xC2, i + 1 < bytes.count, (0x80...0x9F).contains(bytes[i + 1]) {
                found.append(String(format: "U+00%02X at %d", bytes[i + 1], i))
            }
        }
        return found
    }

    func expectClean(
        _ arguments: [String], home: TemporaryDirectory, status: Int32 = 0,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ProcessResult {
        let result = try runWalkscape(arguments, home: home, timeout: 60)
        #expect(result.status == status, "\(arguments.first!): \(result.stderr)", sourceLocation: sourceLocation)
        let output = result.stdoutData + Data(result.stderr.utf8)
        #expect(
            Self.controls(in: output).isEmpty, "\(arguments.first!): \(Self.controls(in: output).prefix(5))",
            sourceLocation: sourceLocation)
        return result
    }

    @Test("lint, preview (computed and performed), play's cues and errors, and trace print no control character")
    func printersAreClean() throws {
        let dir = try TemporaryDirectory()
        let tour = try Self.hostileTour(in: dir)
        let root = tour.root.path
        let lint = try expectClean(["lint", root], home: dir)
        #expect(lint.stdout.contains("point 2 (Two\u{FFFD}]0;owned\u{FFFD}"), "\(lint.stdout)")
        let preview = try expectClean(["preview", root, "--fast", "--no-audio"], home: dir)
        #expect(preview.stdout.contains("Walk\u{FFFD}]0;owned"), "\(preview.stdout)")
        let performed = try expectClean(["preview", root, "--speed", "200", "--no-audio"], home: dir)
        #expect(performed.stdout.contains("Hello \u{FFFD}[2J"), "\(performed.stdout)")
        let play = try expectClean(
            [
                "play", tour.file("media/one.mp3").path, "--subtitles", tour.file("media/one.srt").path,
                "--output", dir.file("one.wav").path,
            ], home: dir)
        #expect(play.stdout.contains("Hello \u{FFFD}[2J\u{FFFD}31m\u{FFFD} there"), "\(play.stdout)")
        let bad = try expectClean(
            [
                "play", tour.file("media/one.mp3").path, "--subtitles", tour.file("media/bad.srt").path,
                "--output", dir.file("two.wav").path,
            ], home: dir, status: 65)
        #expect(bad.stderr.contains("not a timing \u{FFFD}]0;owned\u{FFFD} line"), "\(bad.stderr)")
        let trace = try expectClean(["trace", tour.file("traces/walk\u{1B}[2J.gpx").path], home: dir)
        #expect(trace.stdout.hasPrefix("walk\u{FFFD}[2J.gpx (GPX)\n"), "\(trace.stdout)")
        // JSON escapes control characters itself; it stays exact.
        let json = try runWalkscape(["preview", root, "--fast", "--no-audio", "--json"], home: dir)
        #expect(json.status == 0)
        #expect(Self.controls(in: json.stdoutData).isEmpty)
        #expect(json.stdout.contains(#"\u001b]0;owned"#))
    }

    @Test("map: the SVG stays well-formed XML whatever the titles hold")
    func mapIsWellFormed() throws {
        let dir = try TemporaryDirectory()
        let tour = try Self.hostileTour(in: dir)
        let out = dir.file("map.svg")
        let result = try runWalkscape(
            [
                "map", tour.root.path, "--trace", tour.file("traces/walk\u{1B}[2J.gpx").path,
                "-o", out.path,
            ], home: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let parser = try #require(XMLParser(contentsOf: out))
        #expect(parser.parse(), "not well-formed XML: \(String(describing: parser.parserError))")
        let svg = try String(contentsOf: out, encoding: .utf8)
        #expect(svg.contains("Walk\u{FFFD}]0;owned\u{FFFD}\u{FFFD}[2J"))
    }
}

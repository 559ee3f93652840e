import Foundation
import Playback
import TestSupport
import Testing

/// SRT as it arrives from upstream: each quirk that breaks other parsers is a test here.
@Suite struct SubtitleTrackTests {
    typealias Cue = SubtitleTrack.Cue

    static let twoCues = [
        Cue(index: 1, start: 1.0, end: 2.5, text: "Welcome to Bologna."),
        Cue(index: 2, start: 3.0, end: 4.25, text: "Look up at the beams."),
    ]

    @Test func plainSRT() throws {
        let srt =
            "1\n00:00:01,000 --> 00:00:02,500\nWelcome to Bologna.\n\n2\n00:00:03,000 --> 00:00:04,250\nLook up at the beams.\n"
        #expect(try SubtitleTrack(parsing: srt).cues == Self.twoCues)
    }

    @Test func crlfLineEnds() throws {
        let srt =
            "1\r\n00:00:01,000 --> 00:00:02,500\r\nWelcome to Bologna.\r\n\r\n2\r\n00:00:03,000 --> 00:00:04,250\r\nLook up at the beams.\r\n\r\n"
        #expect(try SubtitleTrack(parsing: srt).cues == Self.twoCues)
    }

    @Test func loneCRLineEnds() throws {
        let srt =
            "1\r00:00:01,000 --> 00:00:02,500\rWelcome to Bologna.\r\r2\r00:00:03,000 --> 00:00:04,250\rLook up at the beams.\r"
        #expect(try SubtitleTrack(parsing: srt).cues == Self.twoCues)
    }

    @Test func utf8ByteOrderMark() throws {
        let srt =
            "\u{FEFF}1\n00:00:01,000 --> 00:00:02,500\nWelcome to Bologna.\n\n2\n00:00:03,000 --> 00:00:04,250\nLook up at the beams.\n"
        #expect(try SubtitleTrack(parsing: srt).cues == Self.twoCues)
        // And through a file, where the BOM is three bytes.
        let dir = try TemporaryDirectory()
        let url = dir.file("bom.srt")
        try (Data([0xEF, 0xBB, 0xBF]) + Data(srt.dropFirst().utf8)).write(to: url)
        #expect(try SubtitleTrack(contentsOf: url).cues == Self.twoCues)
    }

    @Test func dotBeforeMilliseconds() throws {
        let srt =
            "1\n00:00:01.000 --> 00:00:02.500\nWelcome to Bologna.\n\n2\n00:00:03,000 --> 00:00:04.250\nLook up at the beams.\n"
        #expect(try SubtitleTrack(parsing: srt).cues == Self.twoCues)
    }

    @Test func missingIndexLines() throws {
        let srt =
            "00:00:01,000 --> 00:00:02,500\nWelcome to Bologna.\n\n00:00:03,000 --> 00:00:04,250\nLook up at the beams.\n"
        let cues = try SubtitleTrack(parsing: srt).cues
        #expect(
            cues
                == Self.twoCues.map {
                    var c = $0; c.index = nil; return c
                })
    }

    @Test func trailingSpacesEverywhere() throws {
        let srt =
            "1  \n00:00:01,000 --> 00:00:02,500   \nWelcome to Bologna.  \n   \n2\t\n00:00:03,000 --> 00:00:04,250 \nLook up at the beams. \n \n"
        #expect(try SubtitleTrack(parsing: srt).cues == Self.twoCues)
    }

    @Test func missingBlankLineBetweenCues() throws {
        let srt =
            "1\n00:00:01,000 --> 00:00:02,500\nWelcome to Bologna.\n2\n00:00:03,000 --> 00:00:04,250\nLook up at the beams.\n"
        #expect(try SubtitleTrack(parsing: srt).cues == Self.twoCues)
    }

    @Test func missingBlankLineAndMissingIndexTogether() throws {
        let srt =
            "00:00:01,000 --> 00:00:02,500\nWelcome to Bologna.\n00:00:03,000 --> 00:00:04,250\nLook up at the beams.\n"
        #expect(
            try SubtitleTrack(parsing: srt).cues
                == Self.twoCues.map {
                    var c = $0; c.index = nil; return c
                })
    }

    @Test func anArrowInsideCueTextIsText() throws {
        let srt = "1\n00:00:01,000 --> 00:00:02,500\nFrom the tower --> to the gate\n"
        #expect(
            try SubtitleTrack(parsing: srt).cues == [
                Cue(index: 1, start: 1, end: 2.5, text: "From the tower --> to the gate")
            ])
    }

    @Test func multiLineTextNumbersInTextHoursOmittedAndPositionSuffixes() throws {
        let srt = """
            7
            01:02,500 --> 01:04,000 X1:100 X2:600 Y1:20 Y2:50
            The arcade is
            42
            metres long.

            8
            1:00:00,5 --> 1:00:01,25
            Late.
            """
        let cues = try SubtitleTrack(parsing: srt).cues
        #expect(
            cues == [
                Cue(index: 7, start: 62.5, end: 64, text: "The arcade is\n42\nmetres long."),
                Cue(index: 8, start: 3600.5, end: 3601.25, text: "Late."),
            ])
    }

    @Test func emptyInputHasNoCues() throws {
        #expect(try SubtitleTrack(parsing: "").cues.isEmpty)
        #expect(try SubtitleTrack(parsing: "\u{FEFF}\r\n\r\n").cues.isEmpty)
    }

    @Test func malformedTimingNamesTheLine() {
        let srt = "1\n00:00:01,000 --> 00:00:02,500\nOne.\n\n2\n00:00:xx,000 --> 00:00:04,000\nTwo.\n"
        #expect(
            throws: PlaybackError.badSubtitles(
                file: "t.srt", line: 6,
                reason: "'00:00:xx,000 --> 00:00:04,000' is not a time range like '00:00:01,000 --> 00:00:02,500'")
        ) {
            try SubtitleTrack(parsing: srt, file: "t.srt")
        }
    }

    @Test func cueEndingBeforeItStartsIsAnError() {
        #expect(throws: PlaybackError.badSubtitles(file: "subtitles", line: 2, reason: "the cue ends before it starts"))
        {
            try SubtitleTrack(parsing: "1\n00:00:05,000 --> 00:00:04,000\nBackwards.\n")
        }
    }

    @Test func textBeforeAnyCueIsAnError() {
        #expect(
            throws: PlaybackError.badSubtitles(
                file: "subtitles", line: 1,
                reason: "expected a cue number or a timing line, found 'WEBVTT'")
        ) {
            try SubtitleTrack(parsing: "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHi\n")
        }
    }

    @Test func indexWithoutTimingIsAnError() {
        #expect(
            throws: PlaybackError.badSubtitles(file: "subtitles", line: 1, reason: "cue 1 has no timing line after it")
        ) {
            try SubtitleTrack(parsing: "1\n\nHello\n")
        }
    }

    @Test func missingFileIsReported() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("none.srt")
        #expect(throws: PlaybackError.fileNotFound(path: url.path)) { try SubtitleTrack(contentsOf: url) }
    }

    @Test func latin1FileIsReadWhenNotUTF8() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("latin1.srt")
        var bytes = Array("1\n00:00:01,000 --> 00:00:02,000\nCitt".utf8)
        bytes.append(0xE0)  // à in Latin-1, invalid alone in UTF-8
        bytes += Array("\n".utf8)
        try Data(bytes).write(to: url)
        #expect(try SubtitleTrack(contentsOf: url).cues.first?.text == "Città")
    }

    @Test func utf16FileWithByteOrderMarkIsRead() throws {
        let dir = try TemporaryDirectory()
        let srt =
            "1\r\n00:00:01,000 --> 00:00:02,500\r\nWelcome to Bologna.\r\n\r\n2\r\n00:00:03,000 --> 00:00:04,250\r\nLook up at the beams.\r\n"
        for (name, bom, encoding) in [
            ("le.srt", [UInt8(0xFF), 0xFE], String.Encoding.utf16LittleEndian),
            ("be.srt", [UInt8(0xFE), 0xFF], String.Encoding.utf16BigEndian),
        ] {
            let url = dir.file(name)
            try (Data(bom) + srt.data(using: encoding)!).write(to: url)
            #expect(try SubtitleTrack(contentsOf: url).cues == Self.twoCues, "\(name)")
        }
    }

    @Test func cueAtTimeHonoursBoundariesAndGaps() throws {
        let track = try SubtitleTrack(
            parsing: "1\n00:00:01,000 --> 00:00:02,500\nA\n\n2\n00:00:03,000 --> 00:00:04,250\nB\n")
        #expect(track.cue(at: 0) == nil)
        #expect(track.cue(at: 0.999) == nil)
        #expect(track.cue(at: 1.0)?.text == "A")
        #expect(track.cue(at: 2.499)?.text == "A")
        #expect(track.cue(at: 2.5) == nil)
        #expect(track.cue(at: 2.9) == nil)
        #expect(track.cue(at: 3.0)?.text == "B")
        #expect(track.cue(at: 4.25) == nil)
        #expect(track.cue(at: 1e9) == nil)
        #expect(track.cue(at: -1) == nil)
    }

    @Test func overlappingCuesShowTheNewestThenFallBack() throws {
        let srt =
            "1\n00:00:00,000 --> 00:00:10,000\nLong\n\n2\n00:00:02,000 --> 00:00:04,000\nShort\n\n3\n00:00:03,000 --> 00:00:03,500\nTiny\n"
        let track = try SubtitleTrack(parsing: srt)
        #expect(track.cue(at: 1)?.text == "Long")
        #expect(track.cue(at: 2.5)?.text == "Short")
        #expect(track.cue(at: 3.2)?.text == "Tiny")
        #expect(track.cue(at: 3.7)?.text == "Short")
        #expect(track.cue(at: 5)?.text == "Long")
        #expect(track.cue(at: 10) == nil)
    }

    @Test func cuesOutOfOrderInTheFileAreFoundByTime() throws {
        let srt = "2\n00:00:05,000 --> 00:00:06,000\nSecond\n\n1\n00:00:01,000 --> 00:00:02,000\nFirst\n"
        let track = try SubtitleTrack(parsing: srt)
        #expect(track.cues.map(\.text) == ["Second", "First"])
        #expect(track.cue(at: 1.5)?.text == "First")
        #expect(track.cue(at: 5.5)?.text == "Second")
    }

    /// Any mix of the quirks above, over many generated files, parses back to the cues written.
    @Test func generatedFilesWithMixedQuirksRoundTrip() throws {
        var state: UInt64 = 42
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        func stamp(_ ms: Int, dot: Bool) -> String {
            String(
                format: "%02d:%02d:%02d%@%03d", ms / 3_600_000, ms / 60000 % 60, ms / 1000 % 60, dot ? "." : ",",
                ms % 1000)
        }
        for _ in 0..<100 {
            let newline = ["\n", "\r\n", "\r"][next(3)]
            var text = next(2) == 0 ? "\u{FEFF}" : ""
            var expected: [Cue] = []
            var t = next(5000)
            for i in 1...(1 + next(30)) {
                let start = t, end = t + 1 + next(4000)
                t = end + next(2000)
                let withIndex = next(3) != 0
                let lines = (0...next(3)).map { "line \($0) of cue \(i) — città" }
                if withIndex { text += "\(i)" + (next(2) == 0 ? "  " : "") + newline }
                text +=
                    "\(stamp(start, dot: next(2) == 0)) --> \(stamp(end, dot: next(2) == 0))"
                    + (next(3) == 0 ? " " : "") + newline
                for line in lines { text += line + (next(4) == 0 ? " \t" : "") + newline }
                text += newline
                if next(4) == 0 { text += newline }
                expected.append(
                    Cue(
                        index: withIndex ? i : nil, start: Double(start) / 1000, end: Double(end) / 1000,
                        text: lines.joined(separator: "\n")))
            }
            let track = try SubtitleTrack(parsing: text)
            #expect(track.cues == expected)
            if track.cues != expected { break }
            for cue in expected {
                #expect(track.cue(at: (cue.start + cue.end) / 2) == cue)
            }
        }
    }

    @Test func lookupStaysLogarithmicOnALongTrack() throws {
        var srt = ""
        for i in 0..<20_000 {
            srt += "\(i + 1)\n\(stampFor(i * 2000)) --> \(stampFor(i * 2000 + 1500))\nCue \(i)\n\n"
        }
        let track = try SubtitleTrack(parsing: srt)
        #expect(track.cues.count == 20_000)
        let clock = ContinuousClock()
        var hits = 0
        let elapsed = clock.measure {
            for k in 0..<200_000 {
                if track.cue(at: Double(k % 20_000) * 2 + 0.75) != nil { hits += 1 }
            }
        }
        #expect(hits == 200_000)
        #expect(track.cue(at: 2 * 19_999 + 0.5)?.text == "Cue 19999")
        // A linear scan would need ~2 x 10^9 comparisons here; a binary search ~3 million.
        #expect(elapsed < .seconds(2))
    }

    private func stampFor(_ ms: Int) -> String {
        String(format: "%02d:%02d:%02d,%03d", ms / 3_600_000, ms / 60000 % 60, ms / 1000 % 60, ms % 1000)
    }
}

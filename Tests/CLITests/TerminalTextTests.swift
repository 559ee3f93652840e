import Foundation
import Positioning
import Testing
import TourModel
import Walk
import WalkRuntime
import WalkscapeKit

@testable import walkscape

/// The one sanitiser for text on its way to a terminal, and the live walk's printers using it.
struct TerminalTextTests {
    static let hostile = "Duomo\u{1B}]0;owned\u{07}\u{1B}[2J\r\u{9B}31m\u{85}\u{7F}\tend"

    @Test func controlCharactersBecomeVisibleAndInert() {
        #expect(
            TerminalText.sanitized(Self.hostile)
                == "Duomo\u{FFFD}]0;owned\u{FFFD}\u{FFFD}[2J\u{FFFD}\u{FFFD}31m\u{FFFD}\u{FFFD} end")
        #expect(TerminalText.sanitized("two\nlines") == "two\nlines")
        #expect(TerminalText.line("two\nlines") == "two\u{FFFD}lines")
        #expect(TerminalText.sanitized("Caffè «Rivoire» — ✓") == "Caffè «Rivoire» — ✓")
    }

    /// Characters that reorder or hide text on screen become visible too: a slug holding U+202E
    /// was shown reversed, one the walker could not type back. Joiners (emoji, scripts) and the
    /// left-to-right and right-to-left marks stay.
    @Test func bidiOverridesAndInvisibleSpacesBecomeVisible() {
        for hidden in [
            "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}", "\u{2066}", "\u{2067}", "\u{2068}",
            "\u{2069}", "\u{200B}", "\u{2060}", "\u{FEFF}",
        ] {
            #expect(
                TerminalText.sanitized("flo\(hidden)rence") == "flo\u{FFFD}rence",
                "\(hidden.unicodeScalars.first!.value)")
        }
        let kept = "👩\u{200D}💻 \u{05E9}\u{05DC}\u{05D5}\u{05DD}\u{200F} a\u{200C}b \u{200E}x"
        #expect(TerminalText.sanitized(kept) == kept)
    }

    @Test func jsonKeepsItsDataButLosesRawC1AndDEL() throws {
        let json = try JSONEncoder().encode(["t": "a\u{9B}b\u{7F}c\u{1B}"])
        let safe = TerminalText.sanitizedJSON(json)
        #expect(!String(decoding: safe, as: UTF8.self).unicodeScalars.contains { TerminalText.isControl($0) })
        #expect(try JSONDecoder().decode([String: String].self, from: safe) == ["t": "a\u{9B}b\u{7F}c\u{1B}"])
    }

    static func status() -> LiveWalkStatus {
        let origin = Coordinate(latitude: 43.7731, longitude: 11.2560)
        let tour = PlayableTour(
            id: "t", slug: "t", language: "en", title: "Tour" + hostile,
            points: [
                PlayablePoint(id: "a", order: 1, coordinate: origin, triggerRadiusMeters: 30, title: "One" + hostile),
                PlayablePoint(
                    id: "b", order: 2, coordinate: origin.destination(distance: 420, bearing: 135),
                    triggerRadiusMeters: 25, title: "Two" + hostile),
            ])
        var s = LiveWalkStatus(tour: tour, progress: WalkProgress(tourID: "t", language: "en", pointIDs: ["a", "b"]))
        s.nowPlaying = .init(point: tour.points[0], elapsed: 3, duration: 10)
        s.subtitle = "line one" + hostile + "\nline two\u{1B}[5m"
        s.notice = "notice" + hostile
        s.triggers = [.init(pointID: "a", order: 1, index: 0, type: .gps, position: origin, distance: 3)]
        return s
    }

    @Test func theStatusViewDrawsOnlyItsOwnEscapes() {
        let plain = StatusView(width: 400, color: false).render(Self.status())
        #expect(plain.allSatisfy { !$0.unicodeScalars.contains { TerminalText.isControl($0) } }, "\(plain)")
        #expect(plain.contains { $0.contains("line two\u{FFFD}[5m") })
        let coloured = StatusView(width: 400, color: true).render(Self.status())
        // Every ESC left is the start of one of the view's own colour codes.
        for line in coloured {
            let escapes = line.components(separatedBy: "\u{1B}").dropFirst()
            #expect(
                escapes.allSatisfy {
                    $0.hasPrefix("[0m") || $0.hasPrefix("[1m") || $0.hasPrefix("[2m") || $0.hasPrefix("[3")
                }, "\(line)")
            #expect(!line.contains("\u{1B}]") && !line.contains("\u{1B}[2J") && !line.contains("\u{07}"))
        }
    }

    @Test func thePlainWalkLogPrintsNoControlCharacter() {
        let lines = Lines()
        let log = PlainWalkLog(write: { lines.append($0) })
        log.update(Self.status())
        #expect(!lines.all.isEmpty)
        #expect(lines.all.allSatisfy { !$0.unicodeScalars.contains { TerminalText.isControl($0) } }, "\(lines.all)")
        #expect(lines.all.contains { $0.hasPrefix("playing: 1. OneDuomo\u{FFFD}]0;owned") }, "\(lines.all)")
    }

    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    /// A value quoted back in an error is one line and at most 100 characters of it.
    @Test func aValueQuotedBackIsOneShortLine() {
        #expect(TerminalText.echo("http://a\nb") == "'http://a\u{FFFD}b'")
        let long = String(repeating: "x", count: 1_000_000)
        #expect(TerminalText.echo(long) == "'\(String(repeating: "x", count: 100))…' (1000000 characters)")
        #expect(TerminalText.echo("") == "''")
    }
}

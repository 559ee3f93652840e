import FileAccess
import Foundation
import GPSD
import Positioning
import TestSupport
import Testing
import TourModel
import Walk
import WalkRuntime

@testable import walkscape

/// The plain log of a walk without a terminal: one line per thing that happened.
struct PlainWalkLogTests {
    static let origin = Coordinate(latitude: 45, longitude: 7)

    /// Walks `places` (each with its radius) east at 1.5 m/s, a fix a second for `seconds`, with
    /// the silent narration, and returns how the walk ended and the lines the log printed.
    static func walk(_ places: [(Coordinate, Double)], seconds: Int) async throws -> (LiveWalkOutcome, [String]) {
        let home = try TemporaryDirectory()
        let tone = try FixtureAudio.tone(seconds: 0.4)
        let points = places.enumerated().map { i, place in
            PlayablePoint(
                id: "p\(i + 1)", order: i + 1, coordinate: place.0, triggerRadiusMeters: place.1,
                title: "Point \(i + 1)", audio: tone.mp3)
        }
        let tour = PlayableTour(
            id: "log-tour", slug: "log", language: "en", title: "Log", completionMessage: "Done!", points: points)
        let lines = Lines()
        let log = PlainWalkLog(write: { lines.append($0) })
        let walk = LiveWalk(
            core: WalkCore(tour: tour),
            dependencies: .init(
                narration: SilentNarration(), progress: ProgressStore(folder: home.file("progress")),
                journal: EventJournal(url: home.file("outbox.jsonl")), display: { log.update($0) }))
        let (commands, commandSink) = AsyncStream.makeStream(of: WalkAction.self)
        commandSink.finish()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let outcome = await walk.run(
            positions: AsyncStream { c in
                c.yield(.state(.connected))
                for second in 0...seconds {
                    let fix = Fix(
                        time: start.addingTimeInterval(Double(second)),
                        coordinate: origin.destination(distance: Double(second) * 1.5, bearing: 90), mode: .threeD,
                        horizontalError: 4, speed: 1.5, track: 90)
                    c.yield(.fix(fix))
                }
            }, commands: commands
        ).outcome
        return (outcome, lines.all)
    }

    /// Point 2 (10 m) lies 60 m from point 3, inside its 80 m radius: the fix that reaches point 2
    /// triggers both. The log printed only the last trigger of an update, so "triggered: 2." never
    /// appeared (the progress file had both); a log read later must say what triggered each point.
    @Test func pointsTriggeredByOneFixAreEachLogged() async throws {
        let places = [(20.0, 25.0), (150, 10), (210, 80)].map {
            (Self.origin.destination(distance: $0.0, bearing: 90), $0.1)
        }
        let (outcome, lines) = try await Self.walk(places, seconds: 160)
        #expect(outcome == .completed(message: "Done!"))
        let triggered = lines.filter { $0.hasPrefix("triggered: ") }
        #expect(
            triggered.map { String($0.prefix(13)) } == ["triggered: 1.", "triggered: 2.", "triggered: 3."], "\(lines)")
        #expect(lines.contains("heard: 3/3"))
    }

    /// Point 2 lies 40 m off the walker's street and is never entered; point 3 is, and point 2 is
    /// played before it. The log said "triggered: 2. Point 2 (gps)", as if the walker had been
    /// there (the analytics' word: the contract knows only gps and manual).
    @Test func aPointCaughtUpIsLoggedAsMissedOnTheWay() async throws {
        let places = [
            (Self.origin.destination(distance: 20, bearing: 90), 25.0),
            (Self.origin.destination(distance: 150, bearing: 90).destination(distance: 40, bearing: 0), 10),
            (Self.origin.destination(distance: 280, bearing: 90), 25),
        ]
        let (outcome, lines) = try await Self.walk(places, seconds: 210)
        #expect(outcome == .completed(message: "Done!"))
        let triggered = lines.filter { $0.hasPrefix("triggered: ") }
        #expect(triggered.count == 3, "\(lines)")
        #expect(
            triggered.contains("triggered: 2. Point 2 (missed on the way, played before the next one)"), "\(triggered)")
        #expect(triggered.filter { $0.contains("(gps, ") }.count == 2, "\(triggered)")
    }

    final class Lines: @unchecked Sendable {
        private var lines: [String] = []
        private let lock = NSLock()
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }
}

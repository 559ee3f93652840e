import Foundation
import Positioning
import Testing
import TourModel
import Walk

@testable import WalkRuntime

/// The preview's clock against receivers whose clocks misbehave: the walker's time is real time,
/// so a glitch of the receiver's clock must not move the preview's, and a real gap must.
struct TraceClockTests {
    /// Fixes at these receiver times (seconds since `base`), in order.
    static func times(_ seconds: [Double], base: Double = 1_800_000_000) -> [Fix] {
        seconds.map {
            Fix(
                time: Date(timeIntervalSince1970: base + $0), coordinate: Coordinate(latitude: 45, longitude: 7),
                horizontalError: 5)
        }
    }

    /// The preview's time of each fix, in seconds from the first one's.
    static func clock(_ fixes: [Fix]) -> [Double] {
        var clock = TraceClock(stepConfirmations: 3)
        var out: [(Fix, Date)] = []
        for fix in fixes { out += clock.push(fix).map { ($0.fix, $0.time) } }
        out += clock.finish().map { ($0.fix, $0.time) }
        #expect(out.count == fixes.count)
        // Every fix once, in order (an undated one on its date's day).
        #expect(
            zip(out.map(\.0.time), fixes.map(\.time)).allSatisfy {
                $0 == $1 || (NMEAParser.isUndated($1) && $0 == NMEAParser.redate($1, near: $0))
            }, "every fix once, in order")
        let start = out[0].1
        return out.map { $0.1.timeIntervalSince(start) }
    }

    /// `count` fixes `step` seconds apart from `from`.
    static func run(_ from: Double, _ count: Int, step: Double = 1) -> [Double] {
        (0..<count).map { from + Double($0) * step }
    }

    @Test("a real gap of 61 or 90 s counts, also when the clock steps back 35 or 50 s a little later")
    func aRealGapThenAStepBack() {
        for (gap, back) in [(61.0, 35.0), (90.0, 50.0), (120.0, 59.0), (61.0, 100.0)] {
            // 100 fixes, the gap, 30 fixes, then the clock 'back' seconds behind for 60 more.
            let before = Self.run(0, 100)
            let after = Self.run(99 + gap, 30)
            let stepped = Self.run(99 + gap + 30 - back, 60)
            let clock = Self.clock(Self.times(before + after + stepped))
            #expect(clock[100] == 99 + gap, "gap \(gap): \(clock[99...101])")
            // After the step back the clock waits for three fixes, then goes on.
            let last = clock[clock.count - 1]
            #expect(abs(last - (99 + gap + 29 + 60 - 3)) <= 1, "gap \(gap), back \(back): ends at \(last)")
        }
    }

    @Test("a clock an hour behind, or ahead, or all over, for a while and then right again moves nothing")
    func glitchesOfAWhile() {
        let cases: [(String, [Double])] = [
            ("an hour behind for 5 s", Self.run(0, 100) + Self.run(100 - 3600, 5) + Self.run(105, 100)),
            ("an hour behind for 30 s", Self.run(0, 100) + Self.run(100 - 3600, 30) + Self.run(130, 100)),
            ("+1 h, +5 h, +2 h", Self.run(0, 100) + [100 + 3600, 101 + 18_000, 102 + 7200] + Self.run(103, 100)),
            ("1024 weeks behind for 3 s", Self.run(0, 100) + Self.run(100 - 1024 * 604_800, 3) + Self.run(103, 100)),
            ("an hour ahead for 9 min", Self.run(0, 100) + Self.run(100 + 3600, 540) + Self.run(640, 100)),
        ]
        for (name, seconds) in cases {
            let clock = Self.clock(Self.times(seconds))
            let last = clock[clock.count - 1]
            // Real time is the last stamp; a step back costs the three fixes it waits for.
            #expect(
                last <= seconds[seconds.count - 1] + 0.01 && last >= seconds[seconds.count - 1] - 4, "\(name): \(last)")
            #expect(clock == clock.sorted(), "\(name)")
        }
    }

    @Test("a 10 Hz receiver an hour ahead for 61 s moves nothing; one that stays ahead is a gap")
    func tenHertz() {
        let glitch = Self.run(0, 1000, step: 0.1) + Self.run(100 + 3600, 610, step: 0.1) + Self.run(161, 100, step: 0.1)
        let clock = Self.clock(Self.times(glitch))
        #expect(abs(clock[clock.count - 1] - 170.9) < 0.01, "\(clock[clock.count - 1])")
        let gap = Self.run(0, 100) + Self.run(3700, 700)
        #expect(Self.clock(Self.times(gap))[100] == 3700)
    }

    @Test("a recording that starts before the receiver's first date goes on by the time of day")
    func undatedFirstEpochs() {
        // 1970-01-01T10:00:00-04 (GGA alone), then 2026-11-21T10:00:05 on (RMC gave the date).
        let undated = Self.times(Self.run(36_000, 5), base: 0)
        let dated = Self.times(Self.run(36_005, 60), base: 1_795_219_200)
        let clock = Self.clock(undated + dated)
        #expect(clock[5] == 5 && clock[clock.count - 1] == 64, "\(clock[3...6])")
    }

    /// The undated epochs are on the first date's day (the live walk's gpsd source dates them so):
    /// a preview of such a recording (9 of the 89 receivers' logs here) gave its start, its
    /// timeline and its analytics events on 1970-01-01.
    @Test("a recording's undated first epochs are put on its first date's day, and so is what follows")
    func undatedFirstEpochsAreDated() {
        let day = 1_795_219_200.0  // 2026-11-21
        let undated = Self.times(Self.run(36_000, 5), base: 0)
        let dated = Self.times(Self.run(36_005, 60), base: day)
        var clock = TraceClock(stepConfirmations: 3)
        var out: [(fix: Fix, time: Date)] = []
        for fix in undated + dated { out += clock.push(fix) }
        out += clock.finish()
        #expect(out.count == 65)
        let times = out.map { $0.time.timeIntervalSince1970 - day }
        #expect(times == Self.run(36_000, 65), "\(times.prefix(7))")
        // The fixes themselves too, as gpsd's are: the walk core sees no 56-year step.
        let fixTimes = out.map { $0.fix.time.timeIntervalSince1970 - day }
        #expect(fixTimes == Self.run(36_000, 65), "\(fixTimes.prefix(7))")
    }

    /// Undated epochs just before midnight, the first date just after it: they were the day before.
    @Test func undatedEpochsBeforeMidnightAreOnTheDayBefore() {
        let day = 1_795_219_200.0
        let undated = Self.times(Self.run(86_397, 3) + Self.run(0, 2), base: 0)
        let dated = Self.times(Self.run(2, 10), base: day + 86_400)
        var clock = TraceClock(stepConfirmations: 3)
        var out: [(fix: Fix, time: Date)] = []
        for fix in undated + dated { out += clock.push(fix) }
        out += clock.finish()
        let times = out.map { $0.time.timeIntervalSince1970 - day }
        #expect(times == Self.run(86_397, 15), "\(times.prefix(7))")
    }

    /// The preview of such a recording: its start, timeline and events on the first date's day,
    /// a point triggered among the undated epochs included.
    @Test("a preview of a recording that starts undated is dated throughout")
    func aPreviewOfAnUndatedStartIsDated() throws {
        let day = 1_795_219_200.0
        let tour = northTour(points: 2)
        func at(_ t: Double, _ lat: Double, base: Double) -> Fix {
            Fix(
                time: Date(timeIntervalSince1970: base + t), coordinate: Coordinate(latitude: lat, longitude: 9),
                horizontalError: 5)
        }
        // Three undated fixes at point 1 (it triggers on the second), then dated on to point 2.
        var fixes: [Fix] = []
        for k in 0..<200 {
            let t = 36_000 + Double(k)
            fixes.append(k < 3 ? at(t, 45.0, base: 0) : at(t, 45.0 + Double(k - 3) * 0.00002, base: day))
        }
        let narrations: [String: WalkSimulation.Narration] = ["p1": .seconds(3), "p2": .seconds(3)]
        let report: PreviewReport = WalkSimulation(tour: tour, narrations: narrations).run(fixes: fixes)
        #expect(report.traceStart == "2026-11-21T10:00:00.000Z")
        let timelineYears: [String] = report.timeline.map { String($0.time.prefix(4)) }
        let eventYears: [String] = report.events.map { String(ISO8601.format($0.timestamp).prefix(4)) }
        #expect(Set(timelineYears + eventYears) == ["2026"], "\(timelineYears) \(eventYears)")
        let statuses: [PreviewReport.PointStatus] = report.points.map { $0.status }
        #expect(statuses == [.heard, .heard])
    }

    /// A recording with no date at all keeps its times of day (nothing better is known), every
    /// fix once, in order.
    @Test func aRecordingWithNoDateKeepsItsTimesOfDay() {
        let undated = Self.times(Self.run(36_000, 50), base: 0)
        var clock = TraceClock(stepConfirmations: 3)
        var out: [(fix: Fix, time: Date)] = []
        for fix in undated { out += clock.push(fix) }
        out += clock.finish()
        #expect(out.map { $0.time.timeIntervalSince1970 } == Self.run(36_000, 50))
    }
}

/// What an adversarial pass of the first version found.
struct TraceClockRegressionTests {
    typealias T = TraceClockTests

    /// A GPX logged every 10-45 s with one pause of 61-90 s: the fix after the pause, 25 s on,
    /// was taken for the clock coming back, the pause for wild stamps, and points played up to
    /// 106 s early while the timeline ran backwards. Fixes going on forward are never a return.
    @Test(arguments: [61.0, 75.0, 90.0])
    func aSparseIrregularRecordingWithAPause(pause: Double) {
        var rng = SplitMix64(seed: UInt64(pause))
        var t = 0.0
        var seconds: [Double] = []
        for k in 0..<80 {
            seconds.append(t)
            t += k == 40 ? pause : Double.random(in: 10...45, using: &rng)
        }
        let clock = T.clock(T.times(seconds))
        // No glitch at all: the preview's clock is the receiver's.
        #expect(
            zip(clock, seconds).allSatisfy { abs($0 - $1) < 1e-6 },
            "\(zip(clock, seconds).filter { abs($0 - $1) > 1e-6 }.prefix(3))")
    }

    /// One fix stamped an hour ahead, then the receiver drops three epochs: the return lands 5 s
    /// on, past a 4 s allowance, and every later point was an hour late.
    @Test func aWildStampThenAFewDroppedEpochs() {
        for dropped in [2, 3, 10] {
            let seconds = T.run(0, 100) + [100 + 3600] + T.run(101 + Double(dropped), 100)
            let clock = T.clock(T.times(seconds))
            #expect(
                abs(clock[clock.count - 1] - seconds[seconds.count - 1]) < 1e-6, "\(dropped): \(clock[clock.count - 1])"
            )
        }
    }

    /// Thirty seconds without a date, 65 or 90 s without a fix, then the first RMC: the gap
    /// counts by the time of day (the preview put everything 56 years late).
    @Test(arguments: [65.0, 90.0])
    func anUndatedStartThenAGap(gap: Double) {
        let undated = T.times(T.run(36_000, 30), base: 0)
        let dated = T.times(T.run(36_029 + gap, 60), base: 1_795_219_200)
        let clock = T.clock(undated + dated)
        #expect(clock[30] == 29 + gap && clock[clock.count - 1] == 29 + gap + 59, "\(clock[29...31])")
    }

    /// A gap of 66 s, two fixes, a gap of 303 s, and twenty fixes to the end of the trace: the
    /// fixes after the second gap were lost (settling the first held the second, and the end of
    /// the trace settled only one), and a tour that went on there was abandoned.
    @Test func twoRealGapsNearTheEnd() {
        let seconds = T.run(0, 100) + T.run(165, 2) + T.run(469, 20)
        let clock = T.clock(T.times(seconds))
        #expect(clock == seconds, "\(clock.suffix(23))")
    }

    /// The first GGA a second after the first RMC (sentences out of order): a second back, not a
    /// day (it was put 24 h before the rest).
    @Test func anUndatedFixASecondAfterTheFirstDate() {
        let clock = T.clock(T.times([36_001], base: 0) + T.times(T.run(36_000, 60), base: 1_795_219_200))
        #expect(clock[clock.count - 1] <= 59 && clock[clock.count - 1] >= 55, "\(clock.suffix(3))")
    }
}

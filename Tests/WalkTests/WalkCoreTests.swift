import Foundation
import Positioning
import Testing
import TourModel

@testable import Walk

/// One test (or a few) per triggering rule of docs/walk.md, with literal fixes on a tour due north
/// from (45.0, 9.0): P1 at 45.000, P2 at 45.002, P3 at 45.004 (222.4 m apart), radius 30 m.
@Suite("Walk core: the nine triggering rules")
struct WalkCoreTests {
    // MARK: Rule 1

    @Test("rule 1: a single outlier inside a radius does not trigger")
    func outlierDoesNotTrigger() {
        var core = WalkCore(tour: northTour())
        var all: [WalkEffect] = []
        all += core.feed(fix(0, 44.99900))
        all += core.feed(fix(1, 44.99901))
        all += core.feed(fix(2, 45.00400))  // 555 m away in one second, dead centre of P3
        all += core.feed(fix(3, 44.99903))
        all += core.feed(fix(4, 44.99904))
        #expect(all.triggered.isEmpty)
        #expect(all.rejections == [.implausibleJump])
    }

    @Test("rule 1: a jump that persists for the jump persistence (20 s) is real, and counts from then on")
    func persistentJumpIsAccepted() {
        var core = WalkCore(tour: northTour())
        var all: [WalkEffect] = []
        all += core.feed(fix(0, 44.99900))
        all += core.feed(fix(1, 44.99900))
        for s in 2...21 { all += core.feed(fix(Double(s), 45.00200)) }  // 333 m in a second, then holding
        #expect(all.rejections == Array(repeating: .implausibleJump, count: 20))
        #expect(all.triggered.isEmpty)
        let believed = core.feed(fix(22, 45.00200))  // 20 s after the jump: believed, first fix inside P2
        #expect(believed.rejections.isEmpty)
        #expect(believed.triggered.isEmpty)
        let next = core.feed(fix(23, 45.00200))
        #expect(next.triggered.map(\.pointID) == ["p1", "p2"])
        #expect(next.triggered.map(\.type) == [.caughtUp, .gps])
    }

    @Test("rule 1: a three-fix multipath burst at the last point fires nothing, even with missed points played")
    func multipathBurstDoesNotTrigger() {
        var core = WalkCore(tour: northTour(), policy: WalkPolicy(missed: .play))
        var all: [WalkEffect] = []
        for s in 0..<5 { all += core.feed(fix(Double(s), 44.99990)) }  // inside P1: triggered
        all += core.handle(.audioFinished(pointID: "p1"), at: at(20))
        for s in 21..<24 { all += core.feed(fix(Double(s), 45.00400)) }  // 445 m off, dead centre of P3
        for s in 24..<30 { all += core.feed(fix(Double(s), 44.99990 + Double(s - 24) * 0.00001)) }
        #expect(all.triggered.map(\.pointID) == ["p1"])
        #expect(all.rejections == Array(repeating: .implausibleJump, count: 3))
        #expect(!all.isCompleted)
    }

    @Test("rule 1: fixes without a position or with a large error do not count")
    func poorFixesDoNotCount() {
        var core = WalkCore(tour: northTour(), policy: WalkPolicy(maxHorizontalError: 50))
        var all: [WalkEffect] = []
        all += core.feed(fix(0, 44.99985, error: 80))
        all += core.feed(fix(1, 44.99985, error: 80))
        all += core.feed(fix(2, 44.99985, mode: .noFix))
        #expect(all.triggered.isEmpty)
        #expect(all.rejections == [.tooInaccurate, .tooInaccurate, .noFix])
        let effects = core.feed(fix(3, 44.99985)) + core.feed(fix(4, 44.99985))
        #expect(effects.triggered.map(\.pointID) == ["p1"])
        #expect(effects.triggered.first?.distance.map { abs($0 - 16.6698) < 0.001 } == true)
    }

    // MARK: Rule 2

    @Test("rule 2: one fix inside is not an entry; two consecutive ones are, at the second's time")
    func confirmationNeedsConsecutiveFixes() {
        var core = WalkCore(tour: northTour())
        var all: [WalkEffect] = []
        all += core.feed(fix(0, 44.99960))  // 44 m south: outside
        all += core.feed(fix(2, 44.99985))  // inside
        all += core.feed(fix(4, 44.99960))  // outside again: the streak is broken
        all += core.feed(fix(6, 44.99985))  // inside
        #expect(all.triggered.isEmpty)
        let entry = core.feed(fix(7, 44.99990))
        #expect(entry.triggered.map(\.pointID) == ["p1"])
        #expect(entry.events.map(\.name) == [.pointTriggered])
        #expect(entry.events.first?.timestamp == at(7))
        #expect(core.progress.points[0].triggeredAt == at(7))
    }

    @Test("rule 2: a walker standing inside the first radius at the start is inside")
    func insideAtStart() {
        var core = WalkCore(tour: northTour())
        let first = core.feed(fix(0, 45.0))
        #expect(first.events.map(\.name) == [.tourStarted])
        #expect(first.triggered.isEmpty)
        let second = core.feed(fix(1, 45.0))
        #expect(second.triggered.map(\.pointID) == ["p1"])
        #expect(second.played == ["p1"])
    }

    @Test("rule 2: the confirmation count is a policy knob")
    func confirmationCountIsConfigurable() {
        var core = WalkCore(tour: northTour(), policy: WalkPolicy(confirmationFixes: 3))
        #expect((core.feed(fix(0, 45.0)) + core.feed(fix(1, 45.0))).triggered.isEmpty)
        #expect(core.feed(fix(2, 45.0)).triggered.map(\.pointID) == ["p1"])
    }

    // MARK: Rule 3

    @Test("rule 3: a point entered during playback is queued, not interrupting")
    func enteredDuringPlaybackIsQueued() {
        var core = WalkCore(tour: northTour())
        _ = core.feed(fix(0, 45.0))
        #expect(core.feed(fix(1, 45.0)).played == ["p1"])
        _ = core.feed(fix(60, 45.0019))
        let entry = core.feed(fix(61, 45.00195))
        #expect(entry.triggered.map(\.pointID) == ["p2"])
        #expect(entry.queued == ["p2"])
        #expect(entry.played.isEmpty)
        #expect(entry.stops == 0)
        #expect(core.progress.playing?.pointID == "p1")
        let next = core.handle(.audioFinished(pointID: "p1"), at: at(70))
        #expect(next.played == ["p2"])
        #expect(core.progress.points.map(\.status) == [.played, .playing, .pending])
    }

    // MARK: Rule 4

    /// P1 heard, then a detour 79 m east of P2, then straight into P3.
    private func detourToP3(_ core: inout WalkCore) -> [WalkEffect] {
        _ = core.feed(fix(0, 45.0))
        _ = core.feed(fix(1, 45.0))
        _ = core.handle(.audioFinished(pointID: "p1"), at: at(20))
        _ = core.feed(fix(100, 45.002, lng: 9.001))
        return core.feed(fix(200, 45.004)) + core.feed(fix(201, 45.004))
    }

    @Test("rule 4 (play): a missed point is queued before the next, in order")
    func missedPointIsPlayedFirst() {
        var core = WalkCore(tour: northTour(), policy: WalkPolicy(missed: .play))
        let effects = detourToP3(&core)
        #expect(effects.triggered.map(\.pointID) == ["p2", "p3"])
        #expect(effects.triggered.map(\.type) == [.caughtUp, .gps])
        #expect(effects.played == ["p2"])
        #expect(effects.queued == ["p3"])
        let triggerEvents = effects.events.filter { $0.name == .pointTriggered }
        #expect(triggerEvents.map(\.pointID) == ["p2", "p3"])
        #expect(triggerEvents.map { $0.properties["triggerType"] } == [.string("gps"), .string("gps")])
        #expect(triggerEvents[0].properties["caughtUp"] == .bool(true))
        #expect(core.handle(.audioFinished(pointID: "p2"), at: at(230)).played == ["p3"])
    }

    @Test("rule 4 (skip): a missed point is marked missed and never plays")
    func missedPointIsMarked() {
        var core = WalkCore(tour: northTour(), policy: WalkPolicy(missed: .skip))
        let effects = detourToP3(&core)
        #expect(effects.missed == ["p2"])
        #expect(effects.triggered.map(\.pointID) == ["p3"])
        #expect(effects.played == ["p3"])
        #expect(core.progress.points.map(\.status) == [.played, .missed, .playing])
        let end = core.handle(.audioFinished(pointID: "p3"), at: at(230))
        #expect(end.isCompleted)
        #expect(end.events.last?.properties["pointsVisited"] == .int(2))
        #expect(end.events.last?.properties["lastPointIndex"] == .int(2))
    }

    @Test("rule 4 (strict): later points wait for the next one")
    func strictWaitsForTheNextPoint() {
        var core = WalkCore(tour: northTour(), policy: WalkPolicy(missed: .strict))
        let effects = detourToP3(&core)
        #expect(effects.triggered.isEmpty)
        #expect(effects.missed.isEmpty)
        _ = core.feed(fix(300, 45.002))
        #expect(core.feed(fix(301, 45.002)).triggered.map(\.pointID) == ["p2"])
        _ = core.handle(.audioFinished(pointID: "p2"), at: at(320))
        _ = core.feed(fix(400, 45.004))
        let third = core.feed(fix(401, 45.004))
        #expect(third.triggered.map(\.pointID) == ["p3"])
        #expect(third.triggered.map(\.type) == [.gps])
    }

    // MARK: Rule 5

    @Test("rule 5: leaving a radius does not stop audio; re-entering does not replay")
    func reenteringDoesNotReplay() {
        var core = WalkCore(tour: northTour())
        _ = core.feed(fix(0, 45.0))
        _ = core.feed(fix(1, 45.0))
        var after: [WalkEffect] = []
        after += core.feed(fix(30, 44.9990))  // 111 m south, while P1 still plays
        after += core.feed(fix(31, 44.99901))
        #expect(after.stops == 0)
        #expect(core.progress.playing?.pointID == "p1")
        after += core.handle(.audioFinished(pointID: "p1"), at: at(40))
        after += core.feed(fix(60, 45.0))
        after += core.feed(fix(61, 45.0))
        after += core.feed(fix(62, 45.0))
        #expect(after.triggered.isEmpty)
        #expect(after.played.isEmpty)
    }

    // MARK: Rule 6

    @Test("rule 6: a point whose audio fails is announced and the walk goes on")
    func failedAudioDoesNotStall() {
        var core = WalkCore(tour: northTour())
        _ = core.feed(fix(0, 45.0))
        _ = core.feed(fix(1, 45.0))
        _ = core.feed(fix(60, 45.0019))
        #expect(core.feed(fix(61, 45.00195)).queued == ["p2"])
        let failed = core.handle(.audioFailed(pointID: "p1", reason: "not an MP3"), at: at(62))
        #expect(failed.announced == ["p1"])
        #expect(failed.contains(.announce(core.tour.points[0], reason: "not an MP3")))
        #expect(failed.played == ["p2"])
        #expect(core.progress.points.map(\.status) == [.played, .playing, .pending])
    }

    @Test("rule 6: a point without audio is announced; the next point plays")
    func pointWithoutAudioIsAnnounced() {
        var core = WalkCore(tour: northTour(withoutAudio: [1]))
        _ = core.feed(fix(0, 45.0))
        let entry = core.feed(fix(1, 45.0))
        #expect(entry.announced == ["p1"])
        #expect(entry.played.isEmpty)
        #expect(core.progress.playing == nil)
        _ = core.feed(fix(60, 45.0019))
        #expect(core.feed(fix(61, 45.00195)).played == ["p2"])
    }

    // MARK: Rule 7

    @Test("rule 7: completion only after the last point's audio ends")
    func completionWaitsForTheLastAudio() {
        var core = WalkCore(tour: northTour(points: 2))
        _ = core.feed(fix(0, 45.0))
        _ = core.feed(fix(1, 45.0))
        _ = core.feed(fix(60, 45.0019))
        let second = core.feed(fix(61, 45.00195))  // queued behind P1
        #expect(!second.isCompleted)
        let first = core.handle(.audioFinished(pointID: "p1"), at: at(70))
        #expect(first.played == ["p2"])
        #expect(!first.isCompleted)
        #expect(!core.feed(fix(80, 45.002)).isCompleted)
        let end = core.handle(.audioFinished(pointID: "p2"), at: at(301))
        #expect(end.isCompleted)
        #expect(end.contains(.completed(message: "Thanks for walking")))
        let completed = end.events.first { $0.name == .tourCompleted }
        #expect(
            completed?.properties == [
                "durationMinutes": .int(5), "pointsVisited": .int(2),
                "lastPointIndex": .int(1), "platform": .string("linux"),
            ])
        #expect(completed?.timestamp == at(301))
        #expect(core.progress.outcome == .completed)
        #expect(core.handle(.command(.quit), at: at(302)).isEmpty)
    }

    @Test("rule 7: a last point without audio completes the tour when it triggers")
    func lastPointWithoutAudioCompletes() {
        var core = WalkCore(tour: northTour(points: 1, withoutAudio: [1]))
        _ = core.feed(fix(0, 45.0))
        let effects = core.feed(fix(1, 45.0))
        #expect(effects.announced == ["p1"])
        #expect(effects.isCompleted)
    }

    // MARK: Rule 8

    @Test("rule 8: skip stops the narration, counts it as heard, and the queue goes on")
    func skipGoesOn() {
        var core = WalkCore(tour: northTour())
        _ = core.feed(fix(0, 45.0))
        _ = core.feed(fix(1, 45.0))
        _ = core.feed(fix(60, 45.0019))
        _ = core.feed(fix(61, 45.00195))
        let skipped = core.handle(.command(.skip), at: at(62))
        #expect(skipped.first == .stop)
        #expect(skipped.played == ["p2"])
        #expect(core.progress.points[0].status == .played)
        // A late "finished" from the player for the skipped point changes nothing.
        #expect(core.handle(.audioFinished(pointID: "p1"), at: at(63)).isEmpty)
    }

    @Test("rule 8: skip with nothing playing triggers the next point by hand")
    func skipWhenIdleTriggersManually() {
        var core = WalkCore(tour: northTour())
        _ = core.handle(.start, at: at(0))
        let effects = core.handle(.command(.skip), at: at(5))
        #expect(effects.triggered.map(\.type) == [.manual])
        #expect(effects.played == ["p1"])
        #expect(effects.events.first?.properties["triggerType"] == .string("manual"))
    }

    @Test("rule 8: pause holds the narration and the queue; resume goes on")
    func pauseAndResume() {
        var core = WalkCore(tour: northTour())
        _ = core.feed(fix(0, 45.0))
        _ = core.feed(fix(1, 45.0))
        #expect(core.handle(.command(.pause), at: at(2)).contains(.pause))
        _ = core.feed(fix(60, 45.0019))
        #expect(core.feed(fix(61, 45.00195)).queued == ["p2"])
        // The narration was paused, so it cannot have finished; with no narration at all, the
        // queue would still wait: finishing P1 while paused starts nothing.
        #expect(core.handle(.audioFinished(pointID: "p1"), at: at(62)).played.isEmpty)
        let resumed = core.handle(.command(.resume), at: at(90))
        #expect(resumed.played == ["p2"])
    }

    @Test("rule 8: previous plays the point before, then the interrupted one again")
    func previousThenInterrupted() {
        var core = WalkCore(tour: northTour())
        _ = core.feed(fix(0, 45.0))
        _ = core.feed(fix(1, 45.0))
        _ = core.handle(.audioFinished(pointID: "p1"), at: at(20))
        _ = core.feed(fix(60, 45.0019))
        #expect(core.feed(fix(61, 45.00195)).played == ["p2"])
        let back = core.handle(.command(.previous), at: at(65))
        #expect(back.first == .stop)
        #expect(back.played == ["p1"])
        #expect(back.triggered.isEmpty)
        #expect(core.progress.playing == .init(pointID: "p1", isReplay: true))
        let again = core.handle(.audioFinished(pointID: "p1"), at: at(80))
        #expect(again.played == ["p2"])
        #expect(core.progress.points.map(\.status) == [.played, .playing, .pending])
    }

    @Test("rule 8: replay starts the last heard point over without counting it again")
    func replayLastHeard() {
        var core = WalkCore(tour: northTour())
        _ = core.feed(fix(0, 45.0))
        _ = core.feed(fix(1, 45.0))
        _ = core.handle(.audioFinished(pointID: "p1"), at: at(20))
        let replay = core.handle(.command(.replay), at: at(30))
        #expect(replay.played == ["p1"])
        #expect(replay.events.isEmpty)
        #expect(core.progress.pointsVisited == 1)
    }

    @Test("rule 8: quit abandons the walk with the contract's properties")
    func quitAbandons() {
        var core = WalkCore(tour: northTour())
        _ = core.feed(fix(0, 45.0))
        _ = core.feed(fix(1, 45.0))
        let quit = core.handle(.command(.quit), at: at(151))
        #expect(quit.first == .stop)
        #expect(quit.contains(.abandoned))
        let event = quit.events.first
        #expect(event?.name == .tourAbandoned)
        #expect(
            event?.properties == [
                "durationMinutes": .int(3), "pointsVisited": .int(1),
                "lastPointIndex": .int(0), "platform": .string("linux"),
            ])
        #expect(core.feed(fix(152, 45.0)).isEmpty)
    }

    // MARK: Rule 9

    @Test("rule 9: progress is saved after every change, and a resumed walk continues at the right point")
    func resumeFromSavedProgress() throws {
        let tour = northTour()
        var core = WalkCore(tour: tour)
        var saved: [WalkProgress] = []
        saved += core.feed(fix(0, 45.0)).saved
        saved += core.feed(fix(1, 45.0)).saved
        saved += core.handle(.audioFinished(pointID: "p1"), at: at(20)).saved
        saved += core.feed(fix(60, 45.0019)).saved
        saved += core.feed(fix(61, 45.00195)).saved
        #expect(saved.count == 4)  // start, P1 triggered, P1 heard, P2 triggered; the lone fix at 60 changed nothing
        // Through JSON, as the live runtime stores it.
        let data = try JSONEncoder().encode(saved.last!)
        let restored = try JSONDecoder().decode(WalkProgress.self, from: data)
        #expect(restored == saved.last!)

        var resumed = try WalkCore(tour: tour, resuming: restored)
        let start = resumed.handle(.start, at: at(5000))
        #expect(start.played == ["p2"])  // it was playing when the walk stopped
        #expect(start.events.isEmpty)  // not a new tour_started
        _ = resumed.handle(.audioFinished(pointID: "p2"), at: at(5010))
        _ = resumed.feed(fix(5100, 45.004))
        let third = resumed.feed(fix(5101, 45.004))
        #expect(third.triggered.map(\.pointID) == ["p3"])  // P1 and P2 never again
        let end = resumed.handle(.audioFinished(pointID: "p3"), at: at(5120))
        #expect(end.isCompleted)
        #expect(end.events.first?.properties["pointsVisited"] == .int(3))
        #expect(end.events.first?.properties["durationMinutes"] == .int(85))  // from the original start
    }

    @Test("rule 9: a walk saved while paused resumes paused, and plays the interrupted point from the top on resume")
    func resumePausedWalk() throws {
        let tour = northTour()
        var core = WalkCore(tour: tour)
        _ = core.feed(fix(0, 45.0))
        _ = core.feed(fix(1, 45.0))
        let saved = try #require(core.handle(.command(.pause), at: at(5)).saved.last)
        #expect(saved.isPaused && saved.playing?.pointID == "p1")
        var resumed = try WalkCore(tour: tour, resuming: saved)
        let start = resumed.handle(.start, at: at(900))
        #expect(start.played.isEmpty)
        #expect(start.saved.last?.queue == ["p1"])
        let resume = resumed.handle(.command(.resume), at: at(910))
        #expect(resume.played == ["p1"])  // not `.resume`: the old player is gone
        #expect(!resume.contains(.resume))
        #expect(resumed.progress.points[0].status == .playing)
    }

    @Test(
        "rule 9: a walk quit mid-narration resumes: that point plays again from its start, then the queue; one session")
    func resumeAfterQuit() throws {
        let tour = northTour()
        var core = WalkCore(tour: tour)
        var events: [WalkEvent] = []
        events += core.feed(fix(0, 45.0)).events
        events += core.feed(fix(1, 45.0)).events  // P1 plays
        events += core.feed(fix(60, 45.0019)).events
        events += core.feed(fix(61, 45.00195)).events  // P2 entered while P1 plays: queued
        #expect(core.progress.queue == ["p2"])
        let quit = core.handle(.command(.quit), at: at(62))
        events += quit.events
        #expect(quit.first == .stop)
        let saved = try #require(quit.saved.last)
        #expect(saved.outcome == .abandoned)
        #expect(saved.playing?.pointID == "p1")
        #expect(saved.queue == ["p2"])
        #expect(saved.points.map(\.status) == [.playing, .queued, .pending])

        let data = try JSONEncoder().encode(saved)
        var resumed = try WalkCore(tour: tour, resuming: try JSONDecoder().decode(WalkProgress.self, from: data))
        #expect(!resumed.isFinished)
        let start = resumed.handle(.start, at: at(3600))
        #expect(start.played == ["p1"])  // from its start
        #expect(start.events.isEmpty)  // the same session: no second tour_started
        events += start.events
        let p1 = resumed.handle(.audioFinished(pointID: "p1"), at: at(3610))
        #expect(p1.played == ["p2"])  // then the queue, in order
        events += p1.events
        events += resumed.handle(.audioFinished(pointID: "p2"), at: at(3620)).events
        events += resumed.feed(fix(3700, 45.004)).events
        events += resumed.feed(fix(3701, 45.004)).events
        let end = resumed.handle(.audioFinished(pointID: "p3"), at: at(3720))
        events += end.events
        #expect(end.isCompleted)
        #expect(
            events.map(\.name) == [
                .tourStarted, .pointTriggered, .pointTriggered, .tourAbandoned,
                .pointTriggered, .tourCompleted,
            ])
        #expect(events.filter { $0.name == .pointTriggered }.map(\.pointID) == ["p1", "p2", "p3"])
        #expect(end.events.first?.properties["durationMinutes"] == .int(62))  // from the original start
        #expect(resumed.progress.endedAt == at(3720))
    }

    @Test("rule 9: a walk quit while idle resumes at the next point with the points heard still heard")
    func resumeAfterQuitWhileIdle() throws {
        let tour = northTour()
        var core = WalkCore(tour: tour)
        _ = core.feed(fix(0, 45.0))
        _ = core.feed(fix(1, 45.0))
        _ = core.handle(.audioFinished(pointID: "p1"), at: at(20))
        let saved = try #require(core.handle(.command(.quit), at: at(30)).saved.last)
        var resumed = try WalkCore(tour: tour, resuming: saved)
        #expect(resumed.handle(.start, at: at(100)).played.isEmpty)
        #expect(resumed.progress.points.map(\.status) == [.played, .pending, .pending])
        #expect(resumed.progress.nextIndex == 1)
        _ = resumed.feed(fix(200, 45.002))
        #expect(resumed.feed(fix(201, 45.002)).triggered.map(\.pointID) == ["p2"])
    }

    @Test("rule 9: a completed walk is not resumed")
    func completedWalkIsNotResumed() throws {
        let tour = northTour(points: 1)
        var core = WalkCore(tour: tour)
        _ = core.feed(fix(0, 45.0))
        _ = core.feed(fix(1, 45.0))
        let saved = try #require(core.handle(.audioFinished(pointID: "p1"), at: at(20)).saved.last)
        #expect(saved.outcome == .completed)
        #expect(throws: WalkError.self) { try WalkCore(tour: tour, resuming: saved) }
    }

    @Test("rule 9: progress saved for another tour is refused with a clear message")
    func resumeRefusesAnotherTour() {
        var other = northTour()
        other.id = "tour-2"
        let progress = WalkCore(tour: northTour()).progress
        #expect(throws: WalkError.self) { try WalkCore(tour: other, resuming: progress) }
    }

    // MARK: Analytics shape

    @Test("events encode to exactly the contract's keys")
    func eventEncoding() throws {
        var core = WalkCore(tour: northTour())
        let started = core.handle(.start, at: Date(timeIntervalSince1970: 1_777_626_000.25)).events
        #expect(started.count == 1)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(started[0]), as: UTF8.self)
        #expect(
            json
                == #"{"language":"en","name":"tour_started","properties":{"platform":"linux"},"timestamp":"2026-05-01T09:00:00.250Z","tourId":"tour-1"}"#
        )
        let back = try JSONDecoder().decode(WalkEvent.self, from: Data(json.utf8))
        #expect(back == started[0])
    }
}

/// The walk's far-away test stands in for the distance only where the distance is beyond the
/// streak's limit for certain: anywhere on Earth (poles, the antimeridian, antipodes), at walking
/// distances and across the globe.
@Suite struct FarAwayBoundTests {
    @Test func aPointPassedAsSurelyFartherIsFartherThanTheLimit() {
        var rng = SplitMix64(seed: 20_261_126)
        var passed = 0
        for trial in 0..<100_000 {
            let a = Coordinate(
                latitude: Double.random(in: -90...90, using: &rng),
                longitude: Double.random(in: -180...180, using: &rng))
            // Half the pairs within a few kilometres (where walks are), half anywhere.
            let spread = trial % 2 == 0 ? 0.05 : 360.0
            let b = Coordinate(
                latitude: min(90, max(-90, a.latitude + Double.random(in: -spread...spread, using: &rng) / 2)),
                longitude: (a.longitude + Double.random(in: -spread...spread, using: &rng) + 540)
                    .truncatingRemainder(dividingBy: 360) - 180)
            let radius = Double.random(in: 1...200, using: &rng)
            let limit = radius * 1.5 + 1
            let cosines = (cos(a.latitude * WalkCore.toRadians), cos(b.latitude * WalkCore.toRadians))
            guard WalkCore.isSurelyFarther(from: a, to: b, than: limit, cosines: cosines) else { continue }
            passed += 1
            let d = WalkCore.distance(from: a, to: b, within: radius, cosines: cosines)
            #expect(d > limit, "\(a) to \(b): \(d) m, not beyond \(limit) m")
            if d <= limit { return }
        }
        #expect(passed > 50_000)
    }

    @Test func aPointNearTheRadiusIsLeftToTheDistance() {
        let centre = Coordinate(latitude: 45, longitude: 9)
        let cosine = cos(45 * WalkCore.toRadians)
        // 40 m north of a 30 m point: within 1.5 radii + 1 m, so the real distance decides.
        let near = Coordinate(latitude: 45 + 40 / 111_132.0, longitude: 9)
        #expect(!WalkCore.isSurelyFarther(from: near, to: centre, than: 46, cosines: (cosine, cosine)))
        // 200 m east: surely beyond.
        let far = Coordinate(latitude: 45, longitude: 9 + 200 / 78_847.0)
        #expect(WalkCore.isSurelyFarther(from: far, to: centre, than: 46, cosines: (cosine, cosine)))
        // Either side of a pole, where the bound is nearly the whole distance: still below it.
        let north = Coordinate(latitude: 89.9995, longitude: 0), beyond = Coordinate(latitude: 89.9995, longitude: 180)
        let polar = (cos(89.9995 * WalkCore.toRadians), cos(89.9995 * WalkCore.toRadians))
        for limit in stride(from: 100.0, through: 120.0, by: 0.5)
        where WalkCore.isSurelyFarther(from: north, to: beyond, than: limit, cosines: polar) {
            #expect(WalkCore.distance(from: north, to: beyond, within: (limit - 1) / 1.5, cosines: polar) > limit)
        }
    }
}

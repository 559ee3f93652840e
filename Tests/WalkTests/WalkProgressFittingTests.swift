import Foundation
import Positioning
import PropertyBased
import Testing
import TourModel

@testable import Walk
@testable import WalkRuntime

/// A saved walk resumed after its tour's points changed (an update, a curator's edit): the walk
/// keeps what was heard by point id and goes on from the walker's place (docs/walk.md, rule 9).
@Suite("Walk core: resuming a walk whose tour's points changed")
struct WalkProgressFittingTests {
    /// `northTour(points:)` with `edit` applied to its points, renumbered in their new order.
    func edited(_ count: Int, _ edit: (inout [PlayablePoint]) -> Void) -> PlayableTour {
        var tour = northTour(points: count)
        edit(&tour.points)
        for i in tour.points.indices { tour.points[i].order = i + 1 }
        return tour
    }

    func newPoint(_ id: String, latitude: Double) -> PlayablePoint {
        PlayablePoint(
            id: id, order: 0, coordinate: Coordinate(latitude: latitude, longitude: 9.0), triggerRadiusMeters: 30,
            title: "New \(id)", audio: URL(fileURLWithPath: "/narration/\(id).mp3"))
    }

    /// p1 and p2 heard, the walker stopped between p2 and p3 (quit while idle).
    func twoHeard(_ count: Int = 4) throws -> WalkProgress {
        var core = WalkCore(tour: northTour(points: count))
        _ = core.feed(fix(0, 45.0))
        _ = core.feed(fix(1, 45.0))
        _ = core.handle(.audioFinished(pointID: "p1"), at: at(20))
        _ = core.feed(fix(60, 45.002))
        _ = core.feed(fix(61, 45.002))
        _ = core.handle(.audioFinished(pointID: "p2"), at: at(80))
        return try #require(core.handle(.command(.quit), at: at(90)).saved.last)
    }

    @Test("a point added behind the walker is passed over, one removed is forgotten, and the walk goes on")
    func addedBehindAndRemoved() throws {
        let saved = try twoHeard()
        // pX between p1 and p2 (behind the walker); p4 removed.
        let tour = edited(4) { points in
            points.remove(at: 3)
            points.insert(newPoint("pX", latitude: 45.001), at: 1)
        }
        var resumed = try WalkCore(tour: tour, resuming: saved)
        let changes = try #require(resumed.pointChanges)
        #expect(changes.added == ["pX"])
        #expect(changes.removed == ["p4"])
        #expect(changes.passedOver == ["pX"])
        #expect(changes.ahead.isEmpty)
        #expect(resumed.progress.points.map(\.id) == ["p1", "pX", "p2", "p3"])
        #expect(resumed.progress.points.map(\.status) == [.played, .missed, .played, .pending])
        #expect(resumed.progress.nextIndex == 3)
        #expect(resumed.progress.problem == nil)
        #expect(resumed.progress.startedAt == saved.startedAt)  // the same walk session
        #expect(resumed.handle(.start, at: at(500)).played.isEmpty)
        _ = resumed.feed(fix(600, 45.004))
        #expect(resumed.feed(fix(601, 45.004)).triggered.map(\.pointID) == ["p3"])
        #expect(resumed.handle(.audioFinished(pointID: "p3"), at: at(620)).isCompleted)
    }

    @Test("a point added ahead of the walker triggers where it lies")
    func addedAhead() throws {
        let saved = try twoHeard(3)
        let tour = edited(3) { $0.insert(newPoint("pY", latitude: 45.003), at: 2) }
        var resumed = try WalkCore(tour: tour, resuming: saved)
        #expect(resumed.pointChanges?.passedOver == [])
        #expect(resumed.progress.nextIndex == 2)
        _ = resumed.handle(.start, at: at(500))
        _ = resumed.feed(fix(600, 45.003))
        #expect(resumed.feed(fix(601, 45.003)).triggered.map(\.pointID) == ["pY"])
    }

    @Test("a heard point moved to the end is ahead again rather than every point before it passed over")
    func heardPointMovedToTheEnd() throws {
        let saved = try twoHeard(4)
        // p1 moved last: passing over p3 and p4 would cost two points, hearing p1 again one.
        let tour = edited(4) { points in points.append(points.removeFirst()) }
        let resumed = try WalkCore(tour: tour, resuming: saved)
        let changes = try #require(resumed.pointChanges)
        #expect(changes.added.isEmpty && changes.removed.isEmpty)
        #expect(changes.ahead == ["p1"])
        #expect(changes.passedOver.isEmpty)
        #expect(resumed.progress.points.map(\.status) == [.played, .pending, .pending, .pending])
        #expect(resumed.progress.nextIndex == 1)
        #expect(resumed.progress.lastHeard == "p2")
    }

    @Test("the point that was playing is gone: the queue behind it plays on resume")
    func playingPointRemoved() throws {
        var core = WalkCore(tour: northTour())
        _ = core.feed(fix(0, 45.0))
        _ = core.feed(fix(1, 45.0))  // p1 plays
        _ = core.feed(fix(60, 45.002))
        _ = core.feed(fix(61, 45.002))  // p2 queued behind it
        let saved = try #require(core.handle(.command(.quit), at: at(62)).saved.last)
        let tour = edited(3) { $0.removeFirst() }
        var resumed = try WalkCore(tour: tour, resuming: saved)
        #expect(resumed.pointChanges?.removed == ["p1"])
        #expect(resumed.progress.problem == nil)
        #expect(resumed.handle(.start, at: at(500)).played == ["p2"])
    }

    /// `previous` sends the point that was playing back to the queue, still `playing`; a replay of
    /// the one before plays meanwhile. The fitted queue kept only `queued` points, so that point
    /// was dropped: "point 1 is playing, but nothing plays it" on the next resume.
    @Test("a point sent back to the queue by previous stays there, and plays after the replay")
    func pointSentBackByPreviousKeepsItsPlace() throws {
        var core = WalkCore(tour: northTour(points: 3))
        _ = core.feed(fix(0, 45.0))
        _ = core.feed(fix(1, 45.0))
        _ = core.handle(.audioFinished(pointID: "p1"), at: at(20))
        _ = core.feed(fix(60, 45.002))
        _ = core.feed(fix(61, 45.002))  // p2 plays
        _ = core.handle(.command(.previous), at: at(65))  // p1 again; p2 back in the queue
        let saved = try #require(core.handle(.command(.quit), at: at(66)).saved.last)
        #expect(saved.queue == ["p2"] && saved.points[1].status == .playing, "\(saved)")
        let tour = edited(3) { $0.append(newPoint("pZ", latitude: 45.006)) }
        var resumed = try WalkCore(tour: tour, resuming: saved)
        #expect(resumed.progress.problem == nil, "\(resumed.progress)")
        #expect(resumed.progress.queue == ["p2"])
        let start = resumed.handle(.start, at: at(500))
        #expect(start.played == ["p1"])  // the replay, from its start
        #expect(resumed.handle(.audioFinished(pointID: "p1"), at: at(510)).played == ["p2"])
        #expect(resumed.progress.problem == nil)
    }

    /// A curator renames point ids (`p2` to `bridge`) where they stand: the walk knew points by
    /// id alone, so a heard point renamed was a new point, passed over or heard again.
    @Test("points renamed where they stand keep what the walk knew of them, queue and playing included")
    func renamedWhereTheyStand() throws {
        var core = WalkCore(tour: northTour(points: 4))
        _ = core.feed(fix(0, 45.0))
        _ = core.feed(fix(1, 45.0))
        _ = core.handle(.audioFinished(pointID: "p1"), at: at(20))
        _ = core.feed(fix(60, 45.002))
        _ = core.feed(fix(61, 45.002))  // p2 plays
        _ = core.feed(fix(120, 45.004))
        _ = core.feed(fix(121, 45.004))  // p3 queued behind it
        let saved = try #require(core.handle(.command(.quit), at: at(122)).saved.last)
        #expect(saved.points.allSatisfy { $0.place != nil })
        let renamed = ["p1": "duomo", "p2": "bridge", "p3": "square"]
        let tour = edited(4) { points in
            for i in points.indices { points[i].id = renamed[points[i].id] ?? points[i].id }
        }
        var resumed = try WalkCore(tour: tour, resuming: saved)
        let changes = try #require(resumed.pointChanges)
        #expect(changes.renamed.map(\.from) == ["p1", "p2", "p3"])
        #expect(changes.renamed.map(\.to) == ["duomo", "bridge", "square"])
        #expect(changes.added.isEmpty && changes.removed.isEmpty && changes.passedOver.isEmpty && changes.ahead.isEmpty)
        #expect(resumed.progress.points.map(\.status) == [.played, .playing, .queued, .pending])
        #expect(resumed.progress.queue == ["square"])
        #expect(resumed.progress.lastHeard == "duomo")
        #expect(resumed.progress.problem == nil, "\(resumed.progress)")
        // bridge plays again from its start, then square; then p4 where it lies.
        #expect(resumed.handle(.start, at: at(500)).played == ["bridge"])
        #expect(resumed.handle(.audioFinished(pointID: "bridge"), at: at(510)).played == ["square"])
        _ = resumed.handle(.audioFinished(pointID: "square"), at: at(520))
        _ = resumed.feed(fix(600, 45.006))
        #expect(resumed.feed(fix(601, 45.006)).triggered.map(\.pointID) == ["p4"])
    }

    @Test("a point renamed and moved, or saved without places, is a new point: ids are all there is")
    func renamedAndMovedOrSavedWithoutPlaces() throws {
        let saved = try twoHeard(4)
        // p2 renamed and moved 20 m north: another point.
        let moved = edited(4) { points in
            points[1].id = "bridge"
            points[1].coordinate.latitude += 20 / 111_132.0
        }
        let changes = try #require(try WalkCore(tour: moved, resuming: saved).pointChanges)
        #expect(changes.renamed.isEmpty)
        #expect(changes.added == ["bridge"] && changes.removed == ["p2"])
        // The same rename where it stands, from a file written before places were kept.
        var legacy = saved
        for i in legacy.points.indices { legacy.points[i].place = nil }
        let inPlace = edited(4) { $0[1].id = "bridge" }
        let fromLegacy = try #require(try WalkCore(tour: inPlace, resuming: legacy).pointChanges)
        #expect(fromLegacy.renamed.isEmpty && fromLegacy.added == ["bridge"])
        // Its places are kept from now on.
        #expect(try WalkCore(tour: inPlace, resuming: legacy).progress.points.allSatisfy { $0.place != nil })
    }

    /// Ids are numbers a curator's tool hands out in order: a point inserted after p1 shifts
    /// every later id by one. By id, the new point took p2's record (heard, never played) and the
    /// point where p2 stood took p3's; by place, each keeps its own.
    @Test("a point inserted into numbered ids: the points after it keep their records by place, the new one is new")
    func insertedIntoNumberedIDs() throws {
        let saved = try twoHeard(4)  // p1, p2 heard; p3, p4 ahead
        let tour = edited(4) { points in
            points.insert(newPoint("new", latitude: 45.001), at: 1)
            for i in points.indices { points[i].id = "p\(i + 1)" }
        }
        let changes = try #require(try WalkCore(tour: tour, resuming: saved).pointChanges)
        #expect(
            changes.renamed == [.init(from: "p2", to: "p3"), .init(from: "p3", to: "p4"), .init(from: "p4", to: "p5")])
        #expect(changes.added == ["p2"] && changes.removed.isEmpty)
        let resumed = try WalkCore(tour: tour, resuming: saved)
        // The new point lies behind the walker (between the two heard): passed over, not heard.
        #expect(resumed.progress.points.map(\.status) == [.played, .missed, .played, .pending, .pending])
        #expect(changes.passedOver == ["p2"])
        #expect(resumed.progress.lastHeard == "p3")
    }

    @Test("two points whose ids are swapped where they stand keep their own records")
    func swappedIDs() throws {
        let saved = try twoHeard(4)  // p1, p2 heard
        let tour = edited(4) { points in
            points[1].id = "p3"
            points[2].id = "p2"
        }
        let changes = try #require(try WalkCore(tour: tour, resuming: saved).pointChanges)
        #expect(changes.renamed == [.init(from: "p2", to: "p3"), .init(from: "p3", to: "p2")])
        #expect(changes.added.isEmpty && changes.removed.isEmpty && changes.ahead.isEmpty && changes.passedOver.isEmpty)
        var resumed = try WalkCore(tour: tour, resuming: saved)
        #expect(resumed.progress.points.map(\.status) == [.played, .played, .pending, .pending])
        #expect(resumed.progress.lastHeard == "p3")
        _ = resumed.handle(.start, at: at(500))
        _ = resumed.feed(fix(600, 45.004))
        #expect(resumed.feed(fix(601, 45.004)).triggered.map(\.pointID) == ["p2"])
    }

    /// A curator's tool that numbers points in their order: two points swap places, their ids
    /// stay in order. By id alone the walk would not even notice.
    @Test("two points that swap places under ids kept in order are known by where they stand")
    func swappedPlacesUnderTheSameIDs() throws {
        let saved = try twoHeard(4)  // p1, p2 heard, walker between p2 and p3
        let tour = edited(4) { points in
            points.swapAt(1, 2)
            for i in points.indices { points[i].id = "p\(i + 1)" }
        }
        let resumed = try WalkCore(tour: tour, resuming: saved)
        let changes = try #require(resumed.pointChanges)
        #expect(changes.renamed == [.init(from: "p2", to: "p3"), .init(from: "p3", to: "p2")])
        // The route now reaches p3's old place before p2's: the walker stands past it, so it is
        // passed over (the later place wins a tie), and the narration heard is not heard again.
        #expect(resumed.progress.points.map(\.status) == [.played, .missed, .played, .pending])
        #expect(resumed.progress.lastHeard == "p3")
    }

    /// The old id given to a new point elsewhere while the point it named is renamed where it
    /// stands: the record goes with the place, the new point is new.
    @Test("an old id reused for a new point elsewhere does not take the record of the point renamed where it stood")
    func oldIDReusedElsewhere() throws {
        let saved = try twoHeard(4)  // p1, p2 heard
        let tour = edited(4) { points in
            points[1].id = "bridge"
            points.append(newPoint("p2", latitude: 45.008))
        }
        let changes = try #require(try WalkCore(tour: tour, resuming: saved).pointChanges)
        #expect(changes.renamed == [.init(from: "p2", to: "bridge")])
        #expect(changes.added == ["p2"] && changes.removed.isEmpty)
        let resumed = try WalkCore(tour: tour, resuming: saved)
        #expect(resumed.progress.points.map(\.status) == [.played, .played, .pending, .pending, .pending])
    }

    @Test("a point moved a little keeps its record by id; renamed and moved is new")
    func movedKeepsItsRecord() throws {
        let saved = try twoHeard(4)
        let tour = edited(4) { $0[1].coordinate.latitude += 20 / 111_132.0 }
        let resumed = try WalkCore(tour: tour, resuming: saved)
        #expect(resumed.pointChanges == nil || resumed.pointChanges?.isEmpty == true)
        #expect(resumed.progress.points.map(\.status) == [.played, .played, .pending, .pending])
    }

    @Test("a place saved off the earth is a damaged file, refused")
    func placeOffTheEarth() throws {
        var saved = try twoHeard(4)
        saved.points[0].place = Coordinate(latitude: 91, longitude: 0)
        #expect(saved.problem == "point 0's place is not on earth")
    }

    @Test("the points not heard yet all removed: the walk completes when it resumes")
    func restRemoved() throws {
        let saved = try twoHeard(4)
        let tour = edited(4) { $0.removeLast(2) }
        var resumed = try WalkCore(tour: tour, resuming: saved)
        let start = resumed.handle(.start, at: at(500))
        #expect(start.isCompleted)
        #expect(start.events.first?.name == .tourCompleted)
        #expect(start.events.first?.properties["pointsVisited"] == .int(2))
    }

    @Test("the same points in the same order: nothing to report")
    func unchanged() throws {
        let resumed = try WalkCore(tour: northTour(points: 4), resuming: try twoHeard())
        #expect(resumed.pointChanges == nil)
    }

    @Test(
        "crash anywhere, a point removed from the tour meanwhile: the rest is heard once, in order, and the walk ends")
    func removalAnywhere() async {
        await propertyCheck(
            count: 150, input: Gen.int(in: 2...6), Gen.int(in: 0...1_000_000), Gen.double(in: 0...1),
            Gen.int(in: 0...5)
        ) {
            points, seed, crashFraction, removedIndex in
            let walk = RandomWalk(
                .init(points: points, seed: UInt64(seed), sigma: 1, passThrough: true, outlierRate: 0.01))
            var edited = walk.tour
            let removed = edited.points.remove(at: removedIndex % points)
            var driver = WalkResumePropertyTests.Driver(core: WalkCore(tour: walk.tour), narrations: walk.narrations)
            let crashAt = Int(Double(walk.fixes.count - 1) * crashFraction)
            var beforeCrash: [String]?
            var leftAfterResume: [String] = []
            for (n, fix) in walk.fixes.enumerated() {
                if n == 0 { driver.feed(.start, at: fix.time) }
                driver.finishAudio(upTo: fix.time)
                driver.feed(.fix(fix), at: fix.time)
                if n == crashAt && !driver.completed {
                    guard let saved = driver.saved else {
                        Issue.record("no progress saved before fix \(n)")
                        return
                    }
                    beforeCrash = driver.triggered
                    do {
                        driver.core = try WalkCore(tour: edited, resuming: saved)
                    } catch {
                        Issue.record("resume refused: \(error)")
                        return
                    }
                    #expect(driver.core.progress.problem == nil)
                    #expect(driver.core.pointChanges?.removed == [removed.id])
                    leftAfterResume = driver.core.progress.points.filter { $0.status == .pending }.map(\.id)
                    driver.audioEnd = nil
                    driver.feed(.start, at: fix.time)
                }
            }
            driver.finishAudio(upTo: .distantFuture)
            if let beforeCrash {
                #expect(driver.triggered == beforeCrash + leftAfterResume, "no point twice; the rest in order")
            }
            #expect(driver.completed)
        }
    }
}

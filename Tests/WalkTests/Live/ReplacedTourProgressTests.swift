import Foundation
import TestSupport
import Testing
import TourModel

@testable import Walk
@testable import WalkRuntime

/// A walk under way goes on when the service publishes its tour again under a new id and the
/// walker changes to it (as `update` tells them how): the walk of the new id takes the old one's
/// place (`ProgressStore.predecessor`). It started again at point 1, points 1 and 2 heard twice (an
/// adversarial pass on the store).
@Suite struct ReplacedTourProgressTests {
    static let points = (1...5).map { "7c1e0b52-5d0a-4f3e-9a61-0d1f0000000\($0)" }

    /// A walk of `tourID` that heard its first `heard` points, in `language`.
    static func walk(_ tourID: String, heard: Int, language: String = "en", points: [String] = points) -> WalkProgress {
        var progress = WalkProgress(tourID: tourID, language: language, pointIDs: points)
        progress.startedAt = Date(timeIntervalSince1970: 1_790_000_000)
        for i in 0..<heard {
            progress.points[i].status = .played
            progress.points[i].triggeredAt = Date(timeIntervalSince1970: 1_790_000_000 + Double(i) * 60)
            progress.points[i].triggerType = .gps
        }
        progress.nextIndex = heard
        progress.outcome = .abandoned
        progress.endedAt = Date(timeIntervalSince1970: 1_790_000_000 + Double(heard) * 60)
        return progress
    }

    @Test func theWalkOfTheTourANewOneReplacesGoesOn() throws {
        let dir = try TemporaryDirectory()
        let store = ProgressStore(folder: dir.url)
        try store.save(Self.walk("old-id", heard: 2))
        // Another tour's walk, and a finished walk of a third: never taken.
        try store.save(Self.walk("elsewhere", heard: 3, points: (1...5).map { "other-\($0)" }))
        var finished = Self.walk("done-id", heard: 5)
        finished.outcome = .completed
        try store.save(finished)
        #expect(Self.walk("old-id", heard: 2).problem == nil)

        let found = try #require(
            store.predecessor(ofTour: "new-id", pointIDs: Self.points, language: "en", installed: ["new-id"]))
        #expect(found.tourID == "old-id")
        #expect(found.points.map(\.status) == [.played, .played, .pending, .pending, .pending])
        // A point added or one removed on the way still leaves most of them the same.
        #expect(
            store.predecessor(
                ofTour: "new-id", pointIDs: Self.points.dropLast() + ["added"], language: "en", installed: [])?.tourID
                == "old-id")

        // Not while the old tour is installed (its own walk), nor in another language, nor for a
        // tour whose points are others, nor for the tour's own walk.
        #expect(
            store.predecessor(ofTour: "new-id", pointIDs: Self.points, language: "en", installed: ["old-id"]) == nil)
        #expect(store.predecessor(ofTour: "new-id", pointIDs: Self.points, language: "it", installed: []) == nil)
        #expect(
            store.predecessor(
                ofTour: "new-id", pointIDs: (1...5).map { "fresh-\($0)" }, language: "en", installed: []) == nil)
        #expect(store.predecessor(ofTour: "old-id", pointIDs: Self.points, language: "en", installed: []) == nil)
        // Nothing heard yet: nothing to go on with.
        try store.save(Self.walk("old-id", heard: 0))
        #expect(store.predecessor(ofTour: "new-id", pointIDs: Self.points, language: "en", installed: []) == nil)
    }
}

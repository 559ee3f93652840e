import Foundation
import Positioning
import Testing
import TourModel

@testable import Walk

/// A progress file is data: whatever it holds, decoding either gives a progress the core can
/// resume from or says what is wrong; the core never indexes past its tour.
struct WalkProgressValidationTests {
    /// Progress half-way through `northTour()`: point 1 heard, point 2 playing, point 3 pending.
    func midWalk() -> WalkProgress {
        var core = WalkCore(tour: northTour())
        _ = core.handle(.start, at: at(0))
        _ = core.feed(fix(1, 45.0)); _ = core.feed(fix(2, 45.0))
        _ = core.handle(.audioFinished(pointID: "p1"), at: at(60))
        _ = core.feed(fix(100, 45.002)); _ = core.feed(fix(101, 45.002))
        return core.progress
    }

    func decodeError(_ edit: (inout [String: Any]) -> Void) throws -> String? {
        var object = try #require(try JSONSerialization.jsonObject(with: midWalk().fileData()) as? [String: Any])
        edit(&object)
        let data = try JSONSerialization.data(withJSONObject: object)
        do {
            _ = try WalkProgress.decode(fileData: data)
            return nil
        } catch {
            return error.message
        }
    }

    func setPoint(_ index: Int, _ key: String, _ value: Any, in object: inout [String: Any]) {
        var points = object["points"] as! [[String: Any]]
        points[index][key] = value
        object["points"] = points
    }

    @Test func aProgressTheCoreSavedReadsBackEqual() throws {
        let progress = midWalk()
        #expect(progress.problem == nil)
        #expect(try WalkProgress.decode(fileData: progress.fileData()).sameWalk(as: progress))
        #expect(try decodeError { _ in } == nil)
    }

    @Test func nextIndexOutsideThePointsIsRefused() throws {
        #expect(try decodeError { $0["nextIndex"] = -1 } == "nextIndex -1 is outside 0...3")
        #expect(try decodeError { $0["nextIndex"] = 4 } == "nextIndex 4 is outside 0...3")
        #expect(try decodeError { $0["nextIndex"] = 1e300 } == "nextIndex is not valid")
    }

    @Test func statusesMustAgreeWithWhereTheWalkIs() throws {
        #expect(
            try decodeError { setPoint(2, "status", "played", in: &$0) }
                == "point 2 is played, but the walk has not reached it (nextIndex 2)")
        #expect(
            try decodeError { setPoint(0, "status", "pending", in: &$0) }
                == "point 0 is pending, but the walk is past it (nextIndex 2)")
        #expect(
            try decodeError { setPoint(0, "status", "queued", in: &$0) } == "point 0 is queued, but not in the queue")
        #expect(
            try decodeError { setPoint(1, "status", "played", in: &$0) }
                == "point 1 is playing, but its status is played")
        #expect(try decodeError { setPoint(0, "status", "sideways", in: &$0) } == "points[0].status is not valid")
    }

    @Test func queueAndPlayingMustNameKnownPoints() throws {
        #expect(try decodeError { $0["queue"] = ["p9"] } == #"the queue names an unknown point "p9""#)
        #expect(try decodeError { $0["queue"] = ["p1", "p1"] } == "the queue holds point 0 twice")
        #expect(try decodeError { $0["queue"] = ["p2"] } == "point 1 is playing and queued at once")
        #expect(
            try decodeError { $0["playing"] = ["pointID": "p9", "isReplay": false] }
                == #"an unknown point "p9" is playing"#)
        #expect(try decodeError { $0["lastHeard"] = "p9" } == #"the last point heard, "p9", is unknown"#)
        // fuzz-progress finding: `replay` of a "last heard" point still queued played it as a
        // replay, and the core saved a progress its own resume refuses.
        #expect(try decodeError { $0["lastHeard"] = "p2" } == "point 1 is the last heard, but its status is playing")
        #expect(
            try decodeError {
                var points = $0["points"] as! [[String: Any]]
                points[1]["id"] = "p1"
                $0["points"] = points
            } == #"point "p1" is listed twice (0 and 1)"#)
    }

    @Test func timesMustBeOnesAClockCanShow() throws {
        #expect(try decodeError { $0["startedAt"] = -1e300 } == "startedAt is an impossible time")
        #expect(try decodeError { $0["endedAt"] = 1e200 } == "endedAt is an impossible time")
        #expect(
            try decodeError { setPoint(0, "triggeredAt", 1e15, in: &$0) } == "point 0 has an impossible trigger time")
    }

    @Test func missingFieldsAndBrokenJSONAreNamed() throws {
        #expect(try decodeError { $0["points"] = nil } == "points is missing")
        #expect(try decodeError { $0["queue"] = "p1" } == "queue has the wrong type")
        #expect(throws: WalkError("not valid JSON")) { try WalkProgress.decode(fileData: Data("{\"tourID\":".utf8)) }
    }

    @Test func theCoreRefusesAnInconsistentProgressBuiltInCode() {
        var progress = midWalk()
        progress.nextIndex = -1
        #expect(throws: WalkError("the saved walk is inconsistent (nextIndex -1 is outside 0...3); start it again")) {
            try WalkCore(tour: northTour(), resuming: progress)
        }
    }

    @Test func aWalkWhoseClockJumpedAbsurdlyReportsItsDurationWithoutTrapping() {
        // durationMinutes converts a time difference to Int; no clock a runtime passes in may trap it.
        var core = WalkCore(tour: northTour())
        _ = core.handle(.start, at: Date(timeIntervalSince1970: -1e300))
        let effects = core.handle(.command(.quit), at: Date(timeIntervalSince1970: 1e300))
        let abandoned = effects.events.first { $0.name == .tourAbandoned }
        #expect(abandoned?.properties["durationMinutes"] == .int(.max))
    }
}

import Foundation
import Positioning
import Testing
import TourModel

/// Fixes one second apart walking north from a point in Bologna.
private let origin = Coordinate(latitude: 44.4939, longitude: 11.3426)
private let t0 = Date(timeIntervalSince1970: 1_700_000_000)

private func fix(_ second: Double, north metres: Double, mode: Fix.Mode = .threeD,
                 error: Double? = 5) -> Fix {
    let c = origin.destination(distance: abs(metres), bearing: metres < 0 ? 180 : 0)
    return Fix(time: t0.addingTimeInterval(second), coordinate: c, mode: mode, horizontalError: error)
}

@Suite struct FixFilterTests {
    @Test func acceptsAWalkerAtWalkingPace() {
        var filter = FixFilter(configuration: .init())
        let verdicts = (0..<10).map { filter.evaluate(fix(Double($0), north: Double($0) * 1.4)) }
        #expect(verdicts == Array(repeating: .accepted, count: 10))
    }

    @Test func rejectsNoFixAndAcceptsTwoD() {
        var filter = FixFilter(configuration: .init())
        #expect(filter.evaluate(fix(0, north: 0, mode: .noFix)) == .rejected(.noFix))
        #expect(filter.evaluate(fix(1, north: 0, mode: .twoD)) == .accepted)
    }

    @Test func rejectsFixesAboveTheErrorBoundButNotAtIt() {
        var filter = FixFilter(configuration: .init(maxHorizontalError: 50))
        #expect(filter.evaluate(fix(0, north: 0, error: 50.5)) == .rejected(.tooInaccurate))
        #expect(filter.evaluate(fix(1, north: 0, error: 50)) == .accepted)
        #expect(filter.evaluate(fix(2, north: 0, error: .nan)) == .rejected(.tooInaccurate))
        #expect(filter.evaluate(fix(3, north: 1, error: nil)) == .accepted)
    }

    @Test func canRequireAnErrorEstimate() {
        var filter = FixFilter(configuration: .init(requireErrorEstimate: true))
        #expect(filter.evaluate(fix(0, north: 0, error: nil)) == .rejected(.tooInaccurate))
    }

    @Test func rejectsInvalidCoordinates() {
        var filter = FixFilter(configuration: .init())
        let bad = Fix(time: t0, coordinate: Coordinate(latitude: 91, longitude: 0), horizontalError: 3)
        #expect(filter.evaluate(bad) == .rejected(.invalidCoordinate))
    }

    @Test func rejectsTimeGoingBackwardsOrStanding() {
        var filter = FixFilter(configuration: .init())
        #expect(filter.evaluate(fix(10, north: 0)) == .accepted)
        #expect(filter.evaluate(fix(10, north: 1)) == .rejected(.timeNotForward))
        #expect(filter.evaluate(fix(9, north: 1)) == .rejected(.timeNotForward))
        #expect(filter.evaluate(fix(11, north: 1)) == .accepted)
    }

    @Test func dropsALoneOutlierAndKeepsWalking() {
        var filter = FixFilter(configuration: .init())
        #expect(filter.evaluate(fix(0, north: 0)) == .accepted)
        #expect(filter.evaluate(fix(1, north: 1.4)) == .accepted)
        #expect(filter.evaluate(fix(2, north: 300)) == .rejected(.implausibleJump))
        #expect(filter.evaluate(fix(3, north: 4.2)) == .accepted)
        #expect(filter.lastAccepted?.time == t0.addingTimeInterval(3))
    }

    @Test func acceptsAPositionThatPersists() {
        var filter = FixFilter(configuration: .init())
        #expect(filter.evaluate(fix(0, north: 0)) == .accepted)
        #expect(filter.evaluate(fix(1, north: 400)) == .rejected(.implausibleJump))
        #expect(filter.evaluate(fix(2, north: 401)) == .accepted)
        #expect(filter.evaluate(fix(3, north: 402)) == .accepted)
    }

    @Test func threeConfirmationsNeedTwoAgreeingFixes() {
        var filter = FixFilter(configuration: .init(jumpConfirmations: 3))
        #expect(filter.evaluate(fix(0, north: 0)) == .accepted)
        #expect(filter.evaluate(fix(1, north: 400)) == .rejected(.implausibleJump))
        #expect(filter.evaluate(fix(2, north: 401)) == .rejected(.implausibleJump))
        #expect(filter.evaluate(fix(3, north: 402)) == .accepted)
    }

    @Test func twoDifferentOutliersDoNotConfirmEachOther() {
        var filter = FixFilter(configuration: .init())
        #expect(filter.evaluate(fix(0, north: 0)) == .accepted)
        #expect(filter.evaluate(fix(1, north: 400)) == .rejected(.implausibleJump))
        #expect(filter.evaluate(fix(2, north: -400)) == .rejected(.implausibleJump))
        #expect(filter.evaluate(fix(3, north: 3)) == .accepted)
    }

    @Test func jitterWithinTheErrorEstimatesIsNotAJump() {
        var filter = FixFilter(configuration: .init(maxSpeed: 10))
        #expect(filter.evaluate(fix(0, north: 0, error: 20)) == .accepted)
        // 45 m in 1 s is 45 m/s, but the two 20 m estimates leave 5 m of travel.
        #expect(filter.evaluate(fix(1, north: 45, error: 20)) == .accepted)
        // With precise fixes the same move is a jump.
        var strict = FixFilter(configuration: .init(maxSpeed: 10))
        #expect(strict.evaluate(fix(0, north: 0, error: 1)) == .accepted)
        #expect(strict.evaluate(fix(1, north: 45, error: 1)) == .rejected(.implausibleJump))
    }

    @Test func aLongGapMakesADistantFixPlausible() {
        var filter = FixFilter(configuration: .init(maxSpeed: 10))
        #expect(filter.evaluate(fix(0, north: 0)) == .accepted)
        #expect(filter.evaluate(fix(600, north: 1000)) == .accepted)
    }

    @Test func reasonsHaveStableRawValues() {
        #expect(FixFilter.Reason.allCases.map(\.rawValue)
            == ["noFix", "invalidCoordinate", "tooInaccurate", "timeNotForward", "implausibleJump"])
    }
}

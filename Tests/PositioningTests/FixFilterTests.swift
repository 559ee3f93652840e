import Foundation
import Testing
import TourModel

@testable import Positioning

/// Fixes one second apart walking north from a point in Bologna.
private let origin = Coordinate(latitude: 44.4939, longitude: 11.3426)
private let t0 = Date(timeIntervalSince1970: 1_700_000_000)

private func fix(
    _ second: Double, north metres: Double, mode: Fix.Mode = .threeD,
    error: Double? = 5
) -> Fix {
    let c = origin.destination(distance: abs(metres), bearing: metres < 0 ? 180 : 0)
    return Fix(time: t0.addingTimeInterval(second), coordinate: c, mode: mode, horizontalError: error)
}

@Suite struct FixFilterTests {
    @Test func acceptsAWalkerAtWalkingPace() {
        var filter = FixFilter(configuration: .init(coldStartAgreement: 1))
        let verdicts = (0..<10).map { filter.evaluate(fix(Double($0), north: Double($0) * 1.4)) }
        #expect(verdicts == Array(repeating: .accepted, count: 10))
    }

    /// A first fix stamped an hour ahead (the receiver's clock not yet right) was held for the
    /// cold start, and every fix after it refused as not after it: an hour without a fix, the
    /// walk silent. A fix stamped before the held ones starts the agreement again from itself;
    /// a repeated epoch (the same time) does not.
    @Test func aFirstFixStampedAheadDoesNotHoldBackTheFixesAfterIt() {
        var filter = FixFilter()
        var wild = fix(0, north: 0)
        wild.time = wild.time.addingTimeInterval(3600)
        var verdicts = [filter.evaluate(wild), filter.evaluate(fix(1, north: 1.4))]
        #expect(filter.dropped == [wild])
        verdicts += (2..<8).map { filter.evaluate(fix(Double($0), north: Double($0) * 1.4)) }
        #expect(verdicts[0] == .held && verdicts[1] == .held, "\(verdicts)")
        #expect(Array(verdicts[2...]) == Array(repeating: .accepted, count: 6), "\(verdicts)")
        // Each epoch twice, as some receivers send it: the cold start still ends.
        var twice = FixFilter()
        let repeated = (0..<6).flatMap {
            [fix(Double($0), north: Double($0) * 1.4), fix(Double($0), north: Double($0) * 1.4)]
        }
        let verdicts2 = repeated.map { twice.evaluate($0) }
        #expect(verdicts2.contains(.accepted), "\(verdicts2)")
    }

    /// A walker crossing the antimeridian (Taveuni, Fiji) with a receiver that reports its velocity:
    /// the drift rule's reckoning took 179.99 to -179.99 as 359.98° west and refused every fix after.
    @Test func acceptsAWalkerCrossingTheAntimeridian() {
        var filter = FixFilter(configuration: .init(coldStartAgreement: 1))
        let metresPerDegree = 111_320 * cos(16.8 * .pi / 180)
        let verdicts = (0..<60).map { second in
            let longitude = Coordinate.wrappedLongitude(179.9997 + Double(second) * 1.4 / metresPerDegree)
            return filter.evaluate(
                Fix(
                    time: t0.addingTimeInterval(Double(second)),
                    coordinate: Coordinate(latitude: -16.8, longitude: longitude), horizontalError: 5, speed: 1.4,
                    track: 90))
        }
        #expect(verdicts == Array(repeating: .accepted, count: 60), "\(verdicts)")
    }

    /// A receiver whose course is frozen or reversed while its speed is right: within two
    /// stretches of 20 m its velocity is no longer trusted, and the fixes that follow are accepted
    /// (rule 7). It took two 90 s disagreements before, every fix between them refused as drift.
    /// The same walk with the true course keeps it trusted, and refuses nothing.
    @Test(arguments: [nil, 0.0, 180.0] as [Double?])
    func aCourseThatPointsElsewhereIsNotTrustedForLong(wrong: Double?) {
        var filter = FixFilter(configuration: .init(coldStartAgreement: 1))
        var verdicts: [FixFilter.Verdict] = []
        var trustedAt: [Bool] = []
        for second in 0..<120 {
            // East at 1.4 m/s: course 90; frozen at north (0) or reversed (270).
            let track: Double = wrong.map { $0 == 0 ? 0 : 270 } ?? 90
            let c = origin.destination(distance: Double(second) * 1.4, bearing: 90)
            verdicts.append(
                filter.evaluate(
                    Fix(
                        time: t0.addingTimeInterval(Double(second)), coordinate: c, horizontalError: 5, speed: 1.4,
                        track: track)))
            trustedAt.append(filter.trustsVelocity)
        }
        let refused = verdicts.filter { $0 == .rejected(.drift) }.count
        if wrong == nil {
            #expect(refused == 0)
            #expect(trustedAt.allSatisfy { $0 })
        } else {
            // 28 m walked by the second 20 s; two stretches of 20 m are 29 s of walking.
            #expect(trustedAt[35] == false)
            #expect(refused <= 20, "\(refused) fixes refused as drift")
            #expect(verdicts.suffix(80).allSatisfy { $0 == .accepted })
        }
    }

    /// A walker's path as fixes: `place(t)` east and north metres from `origin` at second `t`,
    /// the fix that far off by `bias(t)` (a drift, which the velocity does not share); each fix's
    /// speed and course are the path's own at `t - lag` (a receiver whose course lags), its speed
    /// times `unit`, and every `missingEvery`-th fix has no course.
    private static func walk(
        seconds: Int, lag: Double = 0, unit: Double = 1, missingEvery: Int? = nil,
        bias: (Double) -> Double = { _ in 0 }, place: (Double) -> (east: Double, north: Double)
    ) -> [Fix] {
        (0..<seconds).map { second in
            let t = Double(second)
            var p = place(t)
            p.east += bias(t)
            let a = place(t - lag - 0.5), b = place(t - lag + 0.5)
            let de = b.east - a.east, dn = b.north - a.north
            let speed = (de * de + dn * dn).squareRoot()
            var track = atan2(de, dn) * 180 / .pi
            if track < 0 { track += 360 }
            let m = Geodesy.metresPerDegree(atLatitude: origin.latitude)
            let c = Coordinate(
                latitude: origin.latitude + p.north / m.north, longitude: origin.longitude + p.east / m.east)
            let missing = missingEvery.map { second % $0 == $0 - 1 } ?? false
            return Fix(
                time: t0.addingTimeInterval(t), coordinate: c, horizontalError: 5, speed: speed * unit,
                track: missing ? nil : track)
        }
    }

    /// Round a plaza twice (radius 12 m at 1.8 m/s) with a course lagging 8 s (69° behind), then up a street
    /// while the fixes drift 50 m east over 40 s: the lagging course points away from where the
    /// walker went all round the circles, which once refuted it for the rest of the walk, and the
    /// drift later went through (points on a U's way back played 15-34 s early). A turn is not a
    /// stretch the course is judged on: the drift is still refused.
    @Test func aCourseLaggingRoundAPlazaIsStillTrusted() {
        let lap = 2 * Double.pi * 12 / 1.8
        let fixes = Self.walk(
            seconds: Int(2 * lap) + 160, lag: 8, bias: { t in min(1, max(0, (t - 2 * lap - 80) / 40)) * 50 }
        ) { t in
            if t < 0 { return (0, -12) }
            if t < 2 * lap {
                let a = t / lap * 2 * .pi
                return (12 * sin(a), -12 * cos(a))
            }
            return (0, -12 + (t - 2 * lap) * 1.4)
        }
        var filter = FixFilter(configuration: .init(coldStartAgreement: 1))
        var trusted: [Bool] = []
        var refused = 0
        for fix in fixes {
            if filter.evaluate(fix) == .rejected(.drift) { refused += 1 }
            trusted.append(filter.trustsVelocity)
        }
        // Round the circles the path sums (straight lines 20 s apart, shorter than a circle's
        // path) doubt the speeds for a while, as they always have; up the street, before the
        // drift, the velocity is trusted again.
        let street = Int(2 * lap) + 40
        let doubted = trusted.enumerated().filter { !$0.element }.map(\.offset)
        #expect(trusted[street...].allSatisfy { $0 }, "not trusted at \(doubted)")
        #expect(refused >= 20, "\(refused) fixes refused as drift")
    }

    /// The same drift up a street with one fix in ten carrying no course: each restarted the
    /// reckoning from itself, drifted or not, and the drift went through (10 fixes refused of
    /// 45; points on a U's way back 34 s early). The last velocity carries over such a fix.
    @Test func aFixWithoutACourseDoesNotRestartTheReckoning() {
        func refused(missingEvery: Int?) -> Int {
            let fixes = Self.walk(
                seconds: 160, missingEvery: missingEvery, bias: { t in min(1, max(0, (t - 60) / 40)) * 50 }
            ) { t in (0, t * 1.4) }
            var filter = FixFilter(configuration: .init(coldStartAgreement: 1))
            return fixes.filter { filter.evaluate($0) == .rejected(.drift) }.count
        }
        let all = refused(missingEvery: nil)
        let some = refused(missingEvery: 10)
        #expect(all >= 30, "\(all)")
        #expect(Double(some) >= 0.8 * Double(all), "\(some) refused with one course in ten missing, \(all) with none")
    }

    /// One fix whose speed glitches to 20 m/s, then fixes without a course: the course is carried
    /// over them, not the glitch's speed, which ran the reckoning ahead of the fixes (every fix
    /// after was drift for 90 s, and a point 90 s late). Found by an adversarial pass.
    @Test func aGlitchingSpeedIsNotCarriedOverFixesWithoutACourse() {
        var fixes = Self.walk(seconds: 150) { t in (0, t * 1.4) }
        fixes[40].speed = 20
        for i in 41...43 { fixes[i].track = nil }
        var filter = FixFilter(configuration: .init(coldStartAgreement: 1))
        let refused = fixes.filter { filter.evaluate($0) == .rejected(.drift) }.count
        #expect(refused <= 3, "\(refused) fixes refused as drift")
    }

    /// Speeds in the wrong unit (knots written as metres per second: 1.85 times too fast; the
    /// other way, 0.51), which the path sums' 0.5-2 allowance lets through: every fix was drift
    /// for minutes (232 of a 6-minute walk), and points were heard up to 133 s late. Straight
    /// stretches with a steady course show it within 60 m, and the speeds are rescaled: the
    /// drift rule goes on, and a drift later is still refused (not trusting such a receiver at
    /// all let a drift onto a U's way back play points 25 s early).
    @Test(arguments: [1.852, 1 / 1.944])
    func speedsInAnotherUnitAreRescaled(unit: Double) {
        let fixes = Self.walk(seconds: 300, unit: unit, bias: { t in min(1, max(0, (t - 200) / 40)) * 50 }) { t in
            (0, t * 1.4)
        }
        var filter = FixFilter(configuration: .init(coldStartAgreement: 1))
        var refusedBefore = 0, refusedAfter = 0
        for (second, fix) in fixes.enumerated() where filter.evaluate(fix) == .rejected(.drift) {
            if second < 200 { refusedBefore += 1 } else { refusedAfter += 1 }
        }
        #expect(refusedBefore <= 40, "\(refusedBefore) fixes refused as drift before the drift")
        #expect(refusedAfter >= 20, "\(refusedAfter) fixes of the drift refused")
        #expect(filter.trustsVelocity)
    }

    /// Noise the receiver's error estimate understates (15 m, wandering slowly: each axis an AR(1)
    /// with a 40 s time constant, under an HDOP of 0.9, 4.5 m) on a walker going round a loop of
    /// 120 m radius at 1.3 m/s, with a true velocity, 40 walks. The speeds' unit was judged on 20 m
    /// stretches of the fixes' line, which grows with the noise, ended where the noise carried the
    /// fixes 20 m: in 4 of the walks (4, 23, 25 and 40) the lines came out about 1.9 times the
    /// speeds, taken for knots, and the reckoning ran ahead (an adversarial pass's walk: every fix
    /// refused as drift for 90 s at a time, points 3 and 5 of a loop 90 and 82 s late). Measured
    /// along the velocities over windows ended by time, the noise adds nothing on average; and the
    /// same unit must hold for 20 s (with 40 m of evidence alone, walk 10 was rescaled).
    @Test func understatedWanderingNoiseIsNotTakenForSpeedsInAnotherUnit() {
        let rescaled = Self.loopsInWanderingNoise.filter { $0.value.speedScale != 1 }.keys.sorted()
        #expect(rescaled.isEmpty, "speeds rescaled in walks \(rescaled)")
    }

    /// The same walks: the drift rule itself still refuses such noise for a minute or more in 11 of
    /// them (13 before; it is more than the declared error allows, and wanders as a drift builds).
    /// A tolerance grown from the misses the accepted fixes showed (three times their root mean
    /// square) ended it in all but 3, but let real drifts through: a bias building along the way, or
    /// across it before a turn, raised its own tolerance, and points played 11-245 s early where
    /// they had not (an adversarial pass, 2026-11-27; docs/positioning.md, "Known limits").
    @Test func understatedWanderingNoiseStillLocksTheFixesOutAtTimes() {
        let lockedOut = Self.loopsInWanderingNoise.filter { $0.value.longestRun >= 60 }.keys.sorted()
        withKnownIssue("the drift rule refuses noise its error estimate understates, 90 s at a time") {
            #expect(lockedOut.count <= 4, "fixes refused as drift for 60 s or more in walks \(lockedOut)")
        }
    }

    /// The 40 walks of the two tests above, by seed, walked once.
    private static let loopsInWanderingNoise: [UInt64: (refused: Int, longestRun: Int, speedScale: Double)] =
        Dictionary(
            uniqueKeysWithValues: (1...40 as ClosedRange<UInt64>).map { ($0, walkRoundALoopInWanderingNoise(seed: $0)) }
        )

    /// 600 s round the loop in wandering noise: how many fixes were refused as drift, the longest
    /// run of them, and what the speeds were multiplied by in the end.
    private static func walkRoundALoopInWanderingNoise(
        seed: UInt64
    ) -> (refused: Int, longestRun: Int, speedScale: Double) {
        var random = SplitMix64(seed: seed)
        func gaussian() -> Double {
            let u = Double.random(in: Double.ulpOfOne..<1, using: &random), v = Double.random(in: 0..<1, using: &random)
            return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
        }
        let sigma = 15.0, tau = 40.0, radius = 120.0, speed = 1.3
        let keep = exp(-1 / tau), fresh = sigma * (1 - keep * keep).squareRoot()
        var noise = (east: gaussian() * sigma, north: gaussian() * sigma)
        let m = Geodesy.metresPerDegree(atLatitude: origin.latitude)
        var filter = FixFilter(configuration: .init(coldStartAgreement: 1))
        var refused = 0, run = 0, longestRun = 0
        for second in 0..<600 {
            let angle = Double(second) * speed / radius
            let east = radius * sin(angle) + noise.east, north = radius * (1 - cos(angle)) + noise.north
            // Heading east at first, turning left (north of east is a bearing below 90°).
            var track = (90 - angle * 180 / .pi).truncatingRemainder(dividingBy: 360)
            if track < 0 { track += 360 }
            let fix = Fix(
                time: t0.addingTimeInterval(Double(second)),
                coordinate: Coordinate(
                    latitude: origin.latitude + north / m.north, longitude: origin.longitude + east / m.east),
                horizontalError: 4.5, speed: speed, track: track)
            if filter.evaluate(fix) == .rejected(.drift) {
                refused += 1
                run += 1
                longestRun = max(longestRun, run)
            } else {
                run = 0
            }
            noise = (noise.east * keep + gaussian() * fresh, noise.north * keep + gaussian() * fresh)
        }
        return (refused, longestRun, filter.speedScale)
    }

    @Test func rejectsNoFixAndAcceptsTwoD() {
        var filter = FixFilter(configuration: .init(coldStartAgreement: 1))
        #expect(filter.evaluate(fix(0, north: 0, mode: .noFix)) == .rejected(.noFix))
        #expect(filter.evaluate(fix(1, north: 0, mode: .twoD)) == .accepted)
    }

    @Test func rejectsFixesAboveTheErrorBoundButNotAtIt() {
        var filter = FixFilter(configuration: .init(maxHorizontalError: 50, coldStartAgreement: 1))
        #expect(filter.evaluate(fix(0, north: 0, error: 50.5)) == .rejected(.tooInaccurate))
        #expect(filter.evaluate(fix(1, north: 0, error: 50)) == .accepted)
        #expect(filter.evaluate(fix(2, north: 0, error: .nan)) == .rejected(.tooInaccurate))
        #expect(filter.evaluate(fix(3, north: 1, error: nil)) == .accepted)
    }

    @Test func canRequireAnErrorEstimate() {
        var filter = FixFilter(configuration: .init(requireErrorEstimate: true, coldStartAgreement: 1))
        #expect(filter.evaluate(fix(0, north: 0, error: nil)) == .rejected(.tooInaccurate))
    }

    @Test func rejectsInvalidCoordinates() {
        var filter = FixFilter(configuration: .init(coldStartAgreement: 1))
        let bad = Fix(time: t0, coordinate: Coordinate(latitude: 91, longitude: 0), horizontalError: 3)
        #expect(filter.evaluate(bad) == .rejected(.invalidCoordinate))
    }

    @Test func rejectsTimeGoingBackwardsOrStanding() {
        var filter = FixFilter(configuration: .init(coldStartAgreement: 1))
        #expect(filter.evaluate(fix(10, north: 0)) == .accepted)
        #expect(filter.evaluate(fix(10, north: 1)) == .rejected(.timeNotForward))
        #expect(filter.evaluate(fix(9, north: 1)) == .rejected(.timeNotForward))
        #expect(filter.evaluate(fix(11, north: 1)) == .accepted)
    }

    @Test func dropsALoneOutlierAndKeepsWalking() {
        var filter = FixFilter(configuration: .init(coldStartAgreement: 1))
        #expect(filter.evaluate(fix(0, north: 0)) == .accepted)
        #expect(filter.evaluate(fix(1, north: 1.4)) == .accepted)
        #expect(filter.evaluate(fix(2, north: 300)) == .rejected(.implausibleJump))
        #expect(filter.evaluate(fix(3, north: 4.2)) == .accepted)
        #expect(filter.lastAccepted?.time == t0.addingTimeInterval(3))
    }

    /// A walker at walking pace for ten seconds, then an 868 m multipath burst (good HDOP, the
    /// burst's fixes agreeing with each other within a metre), then the walk goes on.
    @Test(arguments: [3, 5, 10])
    func aMultipathBurstOfAgreeingFixesIsNeverBelieved(length: Int) {
        var filter = FixFilter(configuration: .init(coldStartAgreement: 1))
        for s in 0..<10 { #expect(filter.evaluate(fix(Double(s), north: Double(s) * 1.4)) == .accepted) }
        for i in 0..<length {
            let verdict = filter.evaluate(fix(Double(10 + i), north: 868 + Double(i % 2)))
            #expect(verdict == .rejected(.implausibleJump), "burst fix \(i + 1) of \(length)")
        }
        let after = 10 + length
        #expect(filter.evaluate(fix(Double(after), north: Double(after) * 1.4)) == .accepted)
        #expect(filter.lastAccepted?.time == t0.addingTimeInterval(Double(after)))
    }

    @Test func aRelocationIsAcceptedOnceItHasPersistedForTheJumpPersistence() {
        var filter = FixFilter(configuration: .init(jumpPersistence: 20, coldStartAgreement: 1))
        #expect(filter.evaluate(fix(0, north: 0)) == .accepted)
        // 400 m away from second 1 on, holding still: believed when it has lasted 20 s (second 21),
        // long before the walker could have walked there at 10 m/s (second 39).
        for s in 1...20 {
            #expect(
                filter.evaluate(fix(Double(s), north: 400 + Double(s % 3))) == .rejected(.implausibleJump),
                "second \(s)")
        }
        #expect(filter.evaluate(fix(21, north: 401)) == .accepted)
        #expect(filter.evaluate(fix(22, north: 402)) == .accepted)
    }

    @Test func aHeldJumpIsAcceptedAsSoonAsTheWalkerCouldHaveGotThere() {
        var filter = FixFilter(configuration: .init(maxSpeed: 10, jumpPersistence: 600, coldStartAgreement: 1))
        #expect(filter.evaluate(fix(0, north: 0)) == .accepted)
        // 868 m, less both 5 m estimates, at 10 m/s: plausible from second 85.8 on.
        for s in 1...85 {
            #expect(filter.evaluate(fix(Double(s), north: 868)) == .rejected(.implausibleJump), "second \(s)")
        }
        #expect(filter.evaluate(fix(86, north: 868)) == .accepted)
    }

    @Test func aTunnelExitIsAcceptedAtOnce() {
        var filter = FixFilter(configuration: .init(coldStartAgreement: 1))
        for s in 0..<5 { #expect(filter.evaluate(fix(Double(s), north: Double(s) * 1.4)) == .accepted) }
        // Two minutes without a fix, then 300 m further on: 2.5 m/s, no persistence needed.
        #expect(filter.evaluate(fix(124, north: 305)) == .accepted)
        #expect(filter.evaluate(fix(125, north: 306.4)) == .accepted)
    }

    @Test func burstsInterleavedWithTheWalkNeverAccumulate() {
        var filter = FixFilter(configuration: .init(coldStartAgreement: 1))
        // Every other fix 868 m off for a minute: the true fixes keep resetting the candidate.
        for s in 0..<60 {
            let verdict = filter.evaluate(fix(Double(s), north: s % 2 == 0 ? Double(s) * 1.4 : 868))
            #expect(verdict == (s % 2 == 0 ? .accepted : .rejected(.implausibleJump)), "second \(s)")
        }
    }

    @Test func threeConfirmationsNeedTwoAgreeingFixes() {
        var filter = FixFilter(configuration: .init(jumpConfirmations: 3, jumpPersistence: 0, coldStartAgreement: 1))
        #expect(filter.evaluate(fix(0, north: 0)) == .accepted)
        #expect(filter.evaluate(fix(1, north: 400)) == .rejected(.implausibleJump))
        #expect(filter.evaluate(fix(2, north: 401)) == .rejected(.implausibleJump))
        #expect(filter.evaluate(fix(3, north: 402)) == .accepted)
    }

    @Test func withoutPersistenceTwoAgreeingFixesConfirmAJump() {
        var filter = FixFilter(configuration: .init(jumpConfirmations: 2, jumpPersistence: 0, coldStartAgreement: 1))
        #expect(filter.evaluate(fix(0, north: 0)) == .accepted)
        #expect(filter.evaluate(fix(1, north: 400)) == .rejected(.implausibleJump))
        #expect(filter.evaluate(fix(2, north: 401)) == .accepted)
    }

    @Test func twoDifferentOutliersDoNotConfirmEachOther() {
        var filter = FixFilter(configuration: .init(jumpPersistence: 0, coldStartAgreement: 1))
        #expect(filter.evaluate(fix(0, north: 0)) == .accepted)
        #expect(filter.evaluate(fix(1, north: 400)) == .rejected(.implausibleJump))
        #expect(filter.evaluate(fix(2, north: -400)) == .rejected(.implausibleJump))
        #expect(filter.evaluate(fix(3, north: 3)) == .accepted)
    }

    @Test func jitterWithinTheErrorEstimatesIsNotAJump() {
        var filter = FixFilter(configuration: .init(maxSpeed: 10, coldStartAgreement: 1))
        #expect(filter.evaluate(fix(0, north: 0, error: 20)) == .accepted)
        // 45 m in 1 s is 45 m/s, but the two 20 m estimates leave 5 m of travel.
        #expect(filter.evaluate(fix(1, north: 45, error: 20)) == .accepted)
        // With precise fixes the same move is a jump.
        var strict = FixFilter(configuration: .init(maxSpeed: 10, coldStartAgreement: 1))
        #expect(strict.evaluate(fix(0, north: 0, error: 1)) == .accepted)
        #expect(strict.evaluate(fix(1, north: 45, error: 1)) == .rejected(.implausibleJump))
    }

    @Test func aLongGapMakesADistantFixPlausible() {
        var filter = FixFilter(configuration: .init(maxSpeed: 10, coldStartAgreement: 1))
        #expect(filter.evaluate(fix(0, north: 0)) == .accepted)
        #expect(filter.evaluate(fix(600, north: 1000)) == .accepted)
    }

    @Test func reasonsHaveStableRawValues() {
        #expect(
            FixFilter.Reason.allCases.map(\.rawValue)
                == ["noFix", "invalidCoordinate", "tooInaccurate", "timeNotForward", "implausibleJump", "drift"])
    }
}

import Foundation
import Positioning
import PropertyBased
import Testing
import TourModel

@testable import Walk
@testable import WalkRuntime

/// Properties of the walk core over random tours and random noisy walks (driven through the
/// simulated runtime, so the audio queue and the catch-up logic are part of what is checked).
@Suite("Walk core: properties over random tours and walks")
struct WalkPropertyTests {
    struct Outcome {
        var triggers: [(time: Date, trigger: PointTrigger)] = []
        var firstPlays: [String] = []
        var report: PreviewReport
    }

    static func simulate(_ walk: RandomWalk, policy: WalkPolicy) -> Outcome {
        var triggers: [(Date, PointTrigger)] = []
        var plays: [String] = []
        let simulation = WalkSimulation(tour: walk.tour, policy: policy, narrations: walk.narrations)
        let report = simulation.run(fixes: walk.fixes) { _, time, effects in
            for effect in effects {
                switch effect {
                case .triggered(let t): triggers.append((time, t))
                case .play(let p) where !plays.contains(p.id): plays.append(p.id)
                case .announce(let p, _) where !plays.contains(p.id): plays.append(p.id)
                default: break
                }
            }
        }
        return Outcome(triggers: triggers, firstPlays: plays, report: report)
    }

    static let policies: [WalkPolicy.MissedPoints] = [.play, .skip, .strict]

    @Test(
        "random walks: points trigger in order, each at most once, never before the true path came within radius + error"
    )
    func orderOnceAndNeverEarly() async {
        await propertyCheck(
            count: 300, input: Gen.int(in: 1...6), Gen.double(in: 0...6), Gen.int(in: 0...1_000_000),
            Gen.int(in: 0...2), Gen.int(in: 1...4)
        ) { points, sigma, seed, policyIndex, confirmation in
            let walk = RandomWalk(
                .init(points: points, seed: UInt64(seed), sigma: sigma, passThrough: false, outlierRate: 0.02))
            let policy = WalkPolicy(confirmationFixes: confirmation, missed: Self.policies[policyIndex])
            let outcome = Self.simulate(walk, policy: policy)
            let indices = outcome.triggers.map(\.trigger.index)
            #expect(indices == indices.sorted(), "points trigger in order")
            #expect(Set(indices).count == indices.count, "each point triggers at most once")
            // Narrations start in the order their points triggered: the queue never reorders.
            #expect(
                outcome.firstPlays == outcome.triggers.map(\.trigger.pointID).filter { outcome.firstPlays.contains($0) }
            )
            for (time, trigger) in outcome.triggers where trigger.type == .gps {
                let point = walk.tour.points[trigger.index]
                let reach = point.triggerRadiusMeters + walk.noiseBound * 1.01 + 0.5
                let cameClose = walk.truth.contains {
                    $0.time <= time && $0.position.distance(to: point.coordinate) <= reach
                }
                #expect(
                    cameClose, "point \(trigger.index) triggered at \(time) before the walker came within \(reach) m")
                #expect(reach <= point.triggerRadiusMeters + policy.maxHorizontalError + 0.5)
            }
            if policy.missed == .strict {
                #expect(outcome.triggers.allSatisfy { $0.trigger.type == .gps })
                #expect(indices == Array(0..<indices.count), "strict never skips ahead")
            }
        }
    }

    @Test("walks through every radius hear every point, in order, under every missed-point policy")
    func passingThroughHearsEverything() async {
        await propertyCheck(
            count: 300, input: Gen.int(in: 1...6), Gen.double(in: 0...1.5), Gen.int(in: 0...1_000_000),
            Gen.int(in: 0...2)
        ) { points, sigmaFraction, seed, policyIndex in
            // Noise up to 3 sigma = a quarter of the smallest radius (20 m): the walker is
            // inside while passing within a third of the radius of the centre.
            let walk = RandomWalk(
                .init(
                    points: points, seed: UInt64(seed), sigma: sigmaFraction,
                    passThrough: true, outlierRate: 0.01))
            let policy = WalkPolicy(missed: Self.policies[policyIndex])
            let outcome = Self.simulate(walk, policy: policy)
            let ids = walk.tour.points.map(\.id)
            #expect(outcome.triggers.map(\.trigger.pointID) == ids)
            #expect(outcome.triggers.allSatisfy { $0.trigger.type == .gps })
            #expect(outcome.firstPlays == ids)
            let summary = outcome.report.summary
            #expect(summary.pointsHeard + summary.pointsAnnounced == ids.count)
            #expect(summary.completed)
            let names = outcome.report.events.map(\.name)
            #expect(names.first == .tourStarted)
            #expect(names.last == .tourCompleted)
            #expect(names.filter { $0 == .pointTriggered }.count == ids.count)
        }
    }
}

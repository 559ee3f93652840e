import Foundation
import Positioning
import PropertyBased
import Testing
import TourModel

@testable import Walk
@testable import WalkRuntime

/// Rule 9 as a property: a walk that crashes (or is quit) anywhere and resumes from its last saved progress
/// (through JSON, as the live walk stores it) still hears every point once, in order, and ends.
@Suite("Walk core: resuming after a crash at a random moment")
struct WalkResumePropertyTests {
    /// Drives a core through fixes with narration in virtual time; crashes after `crashAfter`
    /// fixes, losing the core, the player and everything not saved, and resumes at once.
    struct Driver {
        var core: WalkCore
        let narrations: [String: WalkSimulation.Narration]
        var audioEnd: (id: String, time: Date)?
        var saved: WalkProgress?
        var triggered: [String] = []
        var firstPlays: [String] = []
        var completed = false

        mutating func feed(_ input: WalkInput, at time: Date) {
            var current: WalkInput? = input
            while let step = current {
                current = nil
                for effect in core.handle(step, at: time) {
                    switch effect {
                    case .triggered(let t): triggered.append(t.pointID)
                    case .saveProgress(let p):
                        saved = p
                        // What the core saves, its own resume must accept (WalkProgress.problem).
                        if let problem = p.problem { Issue.record("the core saved a progress it refuses: \(problem)") }
                    case .completed: completed = true
                    case .announce(let p, _) where !firstPlays.contains(p.id): firstPlays.append(p.id)
                    case .play(let p):
                        if !firstPlays.contains(p.id) { firstPlays.append(p.id) }
                        switch narrations[p.id] {
                        case .seconds(let d)?: audioEnd = (p.id, time.addingTimeInterval(d))
                        case .unplayable(let reason)?: current = .audioFailed(pointID: p.id, reason: reason)
                        case nil: current = .audioFailed(pointID: p.id, reason: "none")
                        }
                    default: break
                    }
                }
            }
        }

        mutating func finishAudio(upTo time: Date) {
            while let end = audioEnd, end.time <= time {
                audioEnd = nil
                feed(.audioFinished(pointID: end.id), at: end.time)
            }
        }
    }

    @Test("crash or quit anywhere, resume from the saved progress: every point heard once, in order, tour complete")
    func resumeAnywhere() async {
        await propertyCheck(
            count: 200, input: Gen.int(in: 1...6), Gen.int(in: 0...1_000_000), Gen.double(in: 0...1),
            Gen.int(in: 0...1)
        ) {
            points, seed, crashFraction, quits in
            let walk = RandomWalk(
                .init(points: points, seed: UInt64(seed), sigma: 1, passThrough: true, outlierRate: 0.01))
            var driver = Driver(core: WalkCore(tour: walk.tour), narrations: walk.narrations)
            let crashAt = Int(Double(walk.fixes.count - 1) * crashFraction)
            var crashed = false
            for (n, fix) in walk.fixes.enumerated() {
                if n == 0 { driver.feed(.start, at: fix.time) }
                driver.finishAudio(upTo: fix.time)
                driver.feed(.fix(fix), at: fix.time)
                // A completed walk starts over instead of resuming: nothing to interrupt.
                if n == crashAt && !crashed && !driver.completed {
                    crashed = true
                    // The walker quits (q, Ctrl-C), or the power is cut; either way only the saved
                    // progress survives, through its file.
                    if quits == 1 {
                        driver.feed(.command(.quit), at: fix.time)
                        #expect(driver.saved?.outcome == .abandoned)
                    }
                    guard let saved = driver.saved,
                        let data = try? saved.fileData(),
                        let restored = try? WalkProgress.decode(fileData: data)
                    else {
                        Issue.record("no progress saved before fix \(n)")
                        return
                    }
                    #expect(restored.sameWalk(as: saved))
                    do {
                        driver.core = try WalkCore(tour: walk.tour, resuming: restored)
                    } catch {
                        Issue.record("resume refused: \(error)")
                        return
                    }
                    driver.audioEnd = nil
                    driver.feed(.start, at: fix.time)
                }
            }
            driver.finishAudio(upTo: .distantFuture)
            let ids = walk.tour.points.map(\.id)
            #expect(driver.triggered == ids, "each point triggers once, in order, across the interruption")
            #expect(driver.firstPlays == ids)
            #expect(driver.completed)
        }
    }
}

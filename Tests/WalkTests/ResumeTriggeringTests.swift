import Foundation
import Positioning
import Testing
import TourModel

@testable import Walk

/// A walk killed after a point and resumed a while later, the walker having gone on meanwhile:
/// the next points trigger when they would have without the kill.
struct ResumeTriggeringTests {
    /// Feeds `fixes` (each stamped `offset` seconds off by the receiver's clock, handled at its
    /// true time, as a live walk handles fixes at the machine's time) until `stop`; returns when
    /// each point triggered, on the true clock, and the last progress saved.
    static func walk(
        _ core: inout WalkCore, _ fixes: some Sequence<Fix>, offset: Double, until stop: (Date) -> Bool = { _ in false }
    ) -> (triggers: [String: Date], saved: WalkProgress?) {
        var triggers: [String: Date] = [:]
        var saved: WalkProgress?
        for fix in fixes {
            if stop(fix.time) { break }
            var stamped = fix
            stamped.time = fix.time.addingTimeInterval(offset)
            let effects = core.handle(.fix(stamped), at: fix.time)
            for case .triggered(let t) in effects { triggers[t.pointID] = fix.time }
            for case .saveProgress(let p) in effects { saved = p }
            if core.isFinished { break }
        }
        return (triggers, saved)
    }

    /// Killed 3 s after a point triggered and started again 20, 80 or 200 s on, on four shapes, with
    /// and without a drawn route, the receiver's clock right or months off either way: every later
    /// point the walker had not yet reached triggers within a second of the walk without the kill.
    /// Without a drawn route (60 m of tolerance), a walker 80 s on was taken for a later pass of
    /// the last point (nearer it than twice the tolerance) and placed only 130 m from it: the next
    /// point 11-13 s late.
    @Test(arguments: [false, true])
    func aWalkResumedAfterADowntimeTriggersOnTime(drawn: Bool) throws {
        let shapes: [(String, [(x: Double, y: Double)], [Double])] = [
            ("street", RouteShapes.street, [40, 200, 330, 480]),
            ("loop", RouteShapes.loop, [30, 230, 380, 600]),
            ("parallel", RouteShapes.parallel, [30, 300, 520, 800]),
            ("comb", RouteShapes.comb, [30, 250, 500, 800, 1050]),
        ]
        var late: [String] = []
        var compared = 0
        for (name, path, alongs) in shapes {
            let walk = RouteWalk(name, route: path, drawn: drawn, points: alongs.map { .init(along: $0, radius: 25) })
            var whole = WalkCore(tour: walk.tour)
            _ = whole.handle(.start, at: walk.start)
            let expected = Self.walk(&whole, walk.fixes, offset: 0).triggers
            #expect(expected.count == alongs.count, "\(name): \(expected.keys.sorted())")
            for k in 1..<(alongs.count - 1) {
                let killed = try #require(expected["p\(k)"]).addingTimeInterval(3)
                for downtime in [20.0, 80.0, 200.0] {
                    for offset in [0.0, 8e6, -8e6] {
                        var first = WalkCore(tour: walk.tour)
                        _ = first.handle(.start, at: walk.start)
                        let saved = try #require(
                            Self.walk(&first, walk.fixes, offset: offset, until: { $0 > killed }).saved)
                        var resumed = try WalkCore(tour: walk.tour, resuming: saved)
                        let back = killed.addingTimeInterval(downtime)
                        _ = resumed.handle(.start, at: back)
                        let after = Self.walk(&resumed, walk.fixes.filter { $0.time >= back }, offset: offset).triggers
                        for j in (k + 1)...alongs.count {
                            // A point reached while the walk was down is another rule's (missed).
                            guard let due = expected["p\(j)"], due > back.addingTimeInterval(2) else { continue }
                            compared += 1
                            let at = after["p\(j)"].map { $0.timeIntervalSince(due) }
                            if at.map({ abs($0) > 1 }) ?? true {
                                late.append(
                                    "\(name) after p\(k), \(Int(downtime)) s down, clock \(Int(offset)): p\(j) \(at.map { String(format: "%+.0f s", $0) } ?? "never")"
                                )
                            }
                        }
                    }
                }
            }
        }
        #expect(compared > 100)
        #expect(late.isEmpty, "\(late.count) of \(compared): \(late.prefix(8))")
    }
}

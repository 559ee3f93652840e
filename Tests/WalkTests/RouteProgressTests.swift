import Foundation
import Positioning
import TestSupport
import Testing
import TourModel

@testable import Curation
@testable import Walk
@testable import WalkRuntime

/// The route matcher by literal positions: stations, continuity at a crossing, forward only,
/// re-localisation, and what the curator sees of it.
@Suite("Route progress: the matcher")
struct RouteProgressTests {
    static func c(_ x: Double, _ y: Double) -> Coordinate { RouteWalk.coordinate(x, y) }

    static func fix(_ s: Double, _ x: Double, _ y: Double, error: Double? = 5) -> Fix {
        Fix(time: at(s), coordinate: c(x, y), horizontalError: error)
    }

    static func tour(route: [(x: Double, y: Double)], points: [(x: Double, y: Double, r: Double)]) -> PlayableTour {
        PlayableTour(
            id: "t", slug: "t", language: "en", title: "T",
            points: points.enumerated().map { i, p in
                PlayablePoint(
                    id: "p\(i + 1)", order: i + 1, coordinate: c(p.x, p.y), triggerRadiusMeters: p.r,
                    title: "P\(i + 1)")
            },
            route: route.map { c($0.x, $0.y) })
    }

    @Test("stations: a loop's finale at the meeting point gets the route's end; a crossing its second pass")
    func stationsFollowTheStory() {
        let loop = TourRoute(
            tour: Self.tour(
                route: RouteShapes.loop,
                points: [(0, 0, 25), (200, 0, 25), (200, 150, 25), (0, 150, 25), (0, 0, 25)]))
        #expect(loop.source == .drawn)
        #expect(abs(loop.length - 700) < 1)
        #expect(zip(loop.stations, [0.0, 200, 350, 550, 700]).allSatisfy { abs($0 - $1) < 1 }, "\(loop.stations)")
        let eight = TourRoute(
            tour: Self.tour(
                route: RouteShapes.eight,
                points: [(0, 0, 25), (200, 200, 30), (200, 0, 30), (100, 100, 30)]))
        let d = 200 * 2.0.squareRoot()
        #expect(abs(eight.stations[3] - (d + 200 + d / 2)) < 1, "\(eight.stations)")
        #expect(eight.passes(near: Self.c(100, 100), radius: 30).count == 2)
    }

    @Test("a drawn route that reaches a point only before the point before it is not followed")
    func unfitRouteFallsBackToThePoints() {
        let route = TourRoute(tour: Self.tour(route: [(0, 0), (0, 500)], points: [(0, 400, 25), (0, 100, 25)]))
        #expect(route.source == .points)
        #expect(route.unfitReason?.contains("only before the point before it") == true)
        // A point off the route everywhere is a misplaced point, not a reason to drop the route.
        let off = TourRoute(tour: Self.tour(route: [(0, 0), (0, 500)], points: [(0, 100, 25), (300, 300, 25)]))
        #expect(off.source == .drawn)
    }

    @Test("continuity: at a crossing the walker stays on the pass they are on")
    func crossingKeepsThePass() {
        let route = TourRoute(tour: Self.tour(route: RouteShapes.eight, points: [(0, 0, 25)]))
        var progress = RouteProgress(route: route)
        var events: [RouteProgress.Event] = []
        for s in 0...110 { events += progress.update(Self.fix(Double(s), Double(s) * 0.99, Double(s) * 0.99)) }
        // At the crossing (100, 100) after 101 s: 141 m along, not the 624 m of the second pass.
        #expect(abs((progress.progress ?? 0) - 155) < 10, "\(progress.progress ?? -1)")
        #expect(events == [.localised(along: 0)])
    }

    /// Up one street and back down its parallel 60 m east (a U): a receiver drifting east on the
    /// way up puts its fixes nearer the way back, which lies 100-200 m further along the route.
    static func drift(_ s: Double, east: Double, speed: Double?, track: Double?, from y: Double) -> Fix {
        Fix(
            time: at(s), coordinate: c(east, y + s * 1.4), mode: .threeD, horizontalError: 5, speed: speed,
            track: track)
    }

    /// A walker reported one fix a second, exactly where they are, with their speed and course.
    struct Walker {
        var progress: RouteProgress
        let speed: Double
        var second = 0.0

        mutating func go(_ x: Double, _ y: Double, _ track: Double) {
            let fix = Fix(
                time: at(second), coordinate: RouteProgressTests.c(x, y), mode: .threeD, horizontalError: 5,
                speed: speed, track: track)
            _ = progress.update(fix)
            second += 1
        }
    }

    @Test("a fix drifting across a U onto the way back, with the walker's course up the way out, moves nothing there")
    func aCourseUpTheWayOutKeepsProgressThere() {
        let route = TourRoute(tour: Self.tour(route: [(0, 0), (0, 400), (60, 400), (60, 0)], points: [(0, 0, 25)]))
        #expect(route.source == .drawn)
        var progress = RouteProgress(route: route)
        for s in -250 ... -1 { _ = progress.update(Self.drift(Double(s), east: 0, speed: 1.4, track: 2, from: 350)) }
        for s in 0...34 {
            // The bias builds to 55 m east over 34 s while the walker goes north at 1.4 m/s, to
            // 2 m short of the top.
            _ = progress.update(Self.drift(Double(s), east: Double(s) * 55 / 34, speed: 1.4, track: 2, from: 350))
            let truth = 350 + Double(s) * 1.4
            #expect((progress.progress ?? 0) < truth + 20, "\(s) s: \(progress.progress ?? -1) against \(truth)")
            #expect(progress.reach < truth + 20, "\(s) s: reach \(progress.reach) against \(truth)")
        }
        // A walker who goes round the top, the course turning with them, is followed down the way back.
        var round = Walker(progress: RouteProgress(route: route), speed: 1.4)
        for k in 0...285 { round.go(0, Double(k) * 1.4, 2) }
        for k in 1...43 { round.go(Double(k) * 1.4, 400, 90) }
        for k in 1...50 { round.go(60, 400 - Double(k) * 1.4, 180) }
        #expect(abs((round.progress.progress ?? 0) - 530) < 10, "\(round.progress.progress ?? -1)")
    }

    /// Route progress lets a rider the receiver measured fast go further than a walker, by how
    /// far its speeds say they went since the last match, each interval at the lower of its two
    /// fixes' speeds. The fastest speed times the time since the last match let one glitch (a
    /// fix at 12 m/s) open the window, the leap bound and the fold test for as long as no fix
    /// matched: a drift onto a U's way back then moved progress there, and its points played
    /// 14-43 s early. Found by an adversarial pass.
    @Test("one glitching speed does not let progress go where only a rider could be", arguments: [12.0, 30])
    func aGlitchingSpeedOpensNothing(glitch: Double) {
        let route = TourRoute(tour: Self.tour(route: [(0, 0), (0, 1000)], points: [(0, 0, 25)]))
        var walker = Walker(progress: RouteProgress(route: route), speed: 1.4)
        for k in 0...50 { walker.go(0, Double(k) * 1.4, 0) }
        let before = walker.progress.progress ?? -1
        // One fix says 12 m/s; then 20 s of fixes 100 m off the route, walking on.
        _ = walker.progress.update(
            Fix(
                time: at(51), coordinate: Self.c(0, 71.4), mode: .threeD, horizontalError: 5, speed: glitch, track: 0))
        for k in 52...71 {
            _ = walker.progress.update(
                Fix(
                    time: at(Double(k)), coordinate: Self.c(100, Double(k) * 1.4), mode: .threeD,
                    horizontalError: 5, speed: 1.4, track: 0))
        }
        // A fix on the route 300 m on: a walker 20 s on cannot be there (the window reaches
        // 71 + 3 m/s x 21 s + 40 m + the tolerance, about 210 m).
        _ = walker.progress.update(
            Fix(time: at(72), coordinate: Self.c(0, 300), mode: .threeD, horizontalError: 5, speed: 1.4, track: 0))
        #expect(before > 60)
        #expect((walker.progress.progress ?? 0) < 100, "\(walker.progress.progress ?? -1)")
        // A rider the receiver measures at 12 m/s fix after fix is followed 12 m a second.
        var rider = Walker(progress: RouteProgress(route: route), speed: 12)
        for k in 0...30 { rider.go(0, Double(k) * 12, 0) }
        #expect(abs((rider.progress.progress ?? 0) - 360) < 15, "\(rider.progress.progress ?? -1)")
    }

    @Test("without a course, a fix across a hairpin is not taken for a walk 100 m round it in a second")
    func aFoldIsNotCrossedInOneStep() {
        // Without a drawn route the points' tolerance (60 m) holds the way out and the way back
        // alike: the fold is told by the route's way round being far longer than the step. Up a
        // street, up a diagonal to a corner, and back down a street 60 m east of the first.
        let route = TourRoute(
            tour: Self.tour(route: [], points: [(0, 0, 25), (0, 320, 25), (60, 395, 25), (60, 315, 25)]))
        #expect(route.source == .points)
        var progress = RouteProgress(route: route)
        for s in 0...228 { _ = progress.update(Self.fix(Double(s), 0, Double(s) * 1.4)) }
        let diagonal = (x: 60 / 95.7, y: 75 / 95.7)
        for s in 1...44 {
            // 1.4 m/s up the diagonal while the bias builds to 33 m east, 21 m south in 44 s: the
            // fixes come nearer the way back than the way out. Further on, with the fixes past
            // the way back, a walker round the corner is as likely as the bias.
            let f = Double(s) / 60, along = Double(s) * 1.4
            let fix = Self.fix(
                228 + Double(s), diagonal.x * along + 45 * f, 320 + diagonal.y * along - 29 * f)
            _ = progress.update(fix)
            let truth = 320 + along
            #expect((progress.progress ?? 0) < truth + 40, "\(s) s: \(progress.progress ?? -1) against \(truth)")
        }
    }

    /// A spur drawn out to a viewpoint and back along the same street: a walker who turns back
    /// 15 m short of the drawn tip walks down the way back. Found by an adversarial pass: the
    /// fixes matched the way out behind progress (nearer along the route), progress held at the
    /// turn until the walker left the route's tolerance and was twice it from the whole stretch
    /// behind the turn, which is the way back itself, and a point on the way back played only at
    /// the tour's last point, minutes later. The walker's course says which of the two they are on.
    @Test("a walker who turns back short of a spur's tip is followed down its way back")
    func turningBackShortOfASpursTip() {
        let route = TourRoute(
            tour: Self.tour(route: [(0, -150), (0, 0), (200, 0), (0, 0), (0, 150)], points: [(0, -150, 20)]))
        var walker = Walker(progress: RouteProgress(route: route), speed: 1.3)
        for k in 0...115 { walker.go(0, -150 + Double(k) * 1.3, 0) }
        for k in 1...142 { walker.go(Double(k) * 1.3, 0, 90) }  // to 185 m out
        let turn = walker.progress.progress ?? 0
        #expect(turn > 320 && turn < 340, "\(turn)")
        for k in 1...73 { walker.go(185 - Double(k) * 1.3, 0, 270) }  // back to 90 m out
        // 90 m out on the way back is 460 m along the route.
        let back = walker.progress.progress ?? 0
        #expect(back > 420, "\(back) at 90 m out, walking back")
    }

    @Test("forward only: jitter backwards does not lower progress")
    func forwardOnly() {
        let route = TourRoute(tour: Self.tour(route: RouteShapes.street, points: [(0, 0, 25)]))
        var progress = RouteProgress(route: route)
        _ = progress.update(Self.fix(0, 0, 0))
        _ = progress.update(Self.fix(30, 0, 40))
        _ = progress.update(Self.fix(31, 0, 30))
        #expect(progress.progress == progress.reach)
        #expect(abs((progress.progress ?? 0) - 40) < 0.5)
    }

    @Test("a shortcut: off the route, back on it further on, moving forward: re-localised, and said so")
    func shortcutRelocalises() {
        // A loop whose far side is 1 km round but 150 m across.
        let route = TourRoute(tour: Self.tour(route: [(0, 0), (0, 1000), (150, 1000), (150, 0)], points: [(0, 0, 25)]))
        var progress = RouteProgress(route: route)
        var events: [RouteProgress.Event] = []
        for s in 0...100 { events += progress.update(Self.fix(Double(s), 0, Double(s) * 1.4)) }  // up to 140 m
        for s in 101...207 { events += progress.update(Self.fix(Double(s), Double(s - 100) * 1.4, 140)) }  // across
        for s in 208...260 { events += progress.update(Self.fix(Double(s), 150, 140 - Double(s - 207) * 1.4)) }  // on
        #expect(events.contains { if case .left = $0 { true } else { false } })
        let relocalised = events.compactMap { if case .relocalised(_, let to) = $0 { to } else { nil } }
        #expect(relocalised.count == 1)
        #expect((progress.progress ?? 0) > 2_000)
    }

    @Test("standing where the route passes later (a loop's meeting point) is waiting, not a shortcut")
    func standingDoesNotRelocalise() {
        // The route starts 80 m from where the group waits; it ends there.
        let route = TourRoute(
            tour: Self.tour(route: [(80, 0), (200, 0), (200, 150), (0, 150), (0, 0)], points: [(80, 0, 25)]))
        var progress = RouteProgress(route: route)
        var events: [RouteProgress.Event] = []
        for s in 0...600 { events += progress.update(Self.fix(Double(s), Double(s % 3), 0)) }
        #expect(progress.progress == nil)
        #expect(events.isEmpty)
        #expect(progress.reach < 100)
    }

    /// A receiver's slow wander around a walker standing still: each axis an AR(1) process of
    /// `sigma` metres whose fixes a second apart are `correlation` alike (a street of tall
    /// buildings: the position strays tens of metres for a minute at a time).
    static func wander(seed: UInt64, seconds: Int, sigma: Double, correlation: Double) -> [(x: Double, y: Double)] {
        var rng = SplitMix64(seed: seed)
        let step = (1 - correlation * correlation).squareRoot() * sigma
        var x = RandomWalk.gaussian(&rng) * sigma, y = RandomWalk.gaussian(&rng) * sigma
        return (0..<seconds).map { _ in
            x = correlation * x + step * RandomWalk.gaussian(&rng)
            y = correlation * y + step * RandomWalk.gaussian(&rng)
            return (x, y)
        }
    }

    static let square: [(x: Double, y: Double)] = [(0, 0), (400, 0), (400, 400), (0, 400), (0, 0)]

    /// The group waits half an hour at the meeting point, where the route ends too. The place
    /// ahead (the route's last leg) only ever grew with the wander, so noise alone moved 20 m
    /// forward for 20 s: the walk was re-localised to the loop's end and played it all at once.
    @Test("a group waiting at a loop's meeting point under a wandering receiver stays at the start", arguments: 1...8)
    func waitingUnderWanderStaysAtTheStart(seed: UInt64) {
        let route = TourRoute(
            tour: Self.tour(
                route: Self.square, points: [(0, 0, 30), (400, 0, 25), (400, 400, 25), (0, 400, 25), (0, 7, 30)]))
        var progress = RouteProgress(route: route)
        var events: [RouteProgress.Event] = []
        for (s, e) in Self.wander(seed: seed, seconds: 1800, sigma: 30, correlation: 0.98).enumerated() {
            events += progress.update(Self.fix(Double(s), e.x, e.y, error: 15))
        }
        #expect(!events.contains { if case .relocalised = $0 { true } else { false } }, "\(events)")
        // Forward only, progress follows the wander's farthest excursion along the first leg
        // (about three times its spread): far short of the next point, 400 m on.
        #expect((progress.progress ?? 0) < 150, "\(progress.progress ?? -1)")
    }

    /// A walker who joins the route 1450 m along a straight street (started late, or back from a
    /// bus ride): the window's own best place was its far end, which grows at 3 m/s, faster than
    /// the walker, so the fixes further on were taken for a drift and never followed.
    @Test("a walker who appears further along a straight street is placed there within a minute")
    func joiningFurtherOnIsFollowed() {
        let route = TourRoute(tour: Self.tour(route: [(0, 0), (0, 2100)], points: [(0, 0, 25), (0, 1500, 25)]))
        // From the start: on from 1450 m at once.
        var late = RouteProgress(route: route)
        var events: [RouteProgress.Event] = []
        for s in 0...60 { events += late.update(Self.fix(Double(s), 2, 1450 + Double(s) * 1.3)) }
        #expect(events.contains { if case .relocalised = $0 { true } else { false } }, "\(events)")
        #expect((late.progress ?? 0) > 1450, "\(late.progress ?? -1)")
        // After a bus ride: 400 m walked, two minutes without a fix, then on from 1400 m.
        var bus = RouteProgress(route: route)
        for s in 0...300 { _ = bus.update(Self.fix(Double(s), 0, Double(s) * 1.3)) }
        for s in 420...480 { _ = bus.update(Self.fix(Double(s), 2, 1400 + Double(s - 420) * 1.3)) }
        #expect((bus.progress ?? 0) > 1400, "\(bus.progress ?? -1)")
    }

    /// The spur out to a viewpoint skipped: the walker goes on from its foot, where the route
    /// comes back later; the stretch after the spur is where they are.
    @Test("a spur skipped: the walker is placed after it before reaching the next point")
    func skippedSpurIsFollowed() {
        let route = TourRoute(
            tour: Self.tour(
                route: [(0, 0), (0, 200), (300, 200), (0, 200), (0, 600)],
                points: [(0, 0, 25), (300, 200, 25), (0, 320, 25)]))
        var progress = RouteProgress(route: route)
        for s in 0...300 {
            let y = Double(s) * 1.3
            _ = progress.update(Self.fix(Double(s), 1, y))
            // The point 120 m past the spur's foot: the walker is placed by the time they get there.
            if y >= 300 { break }
        }
        #expect((progress.progress ?? 0) > 800, "\(progress.progress ?? -1)")
    }

    @Test("preview: a shortcut shows as left the route and re-localised; the map draws the progress")
    func previewAndMapShowProgress() {
        let tour = Self.tour(
            route: [(0, 0), (0, 1000), (150, 1000), (150, 0)],
            points: [(0, 0, 25), (0, 500, 25), (150, 500, 25), (150, 50, 25)])
        var fixes: [Fix] = []
        for s in 0...100 { fixes.append(Self.fix(Double(s), 0, Double(s) * 1.4)) }
        for s in 101...207 { fixes.append(Self.fix(Double(s), Double(s - 100) * 1.4, 140)) }
        for s in 208...300 { fixes.append(Self.fix(Double(s), 150, 140 - Double(s - 207) * 1.4)) }
        let narrations = Dictionary(
            uniqueKeysWithValues: tour.points.map { ($0.id, WalkSimulation.Narration.seconds(3)) })
        let report = WalkSimulation(tour: tour, narrations: narrations).run(fixes: fixes)
        let kinds = report.timeline.map(\.kind)
        #expect(kinds.contains(.leftRoute))
        #expect(kinds.contains(.relocalised))
        #expect(report.timeline.first { $0.kind == .relocalised }?.text.hasPrefix("progress re-localised") == true)
        #expect(report.route?.source == .drawn)
        #expect((report.route?.progressMeters ?? 0) > 2_000)  // where point 4 completed the tour
        // Points 2 and 3 were passed by the shortcut: caught up before point 4, which fired there.
        #expect(report.points.map { $0.trigger?.type } == [.gps, .caughtUp, .caughtUp, .gps])
        var map = TourMap(tour: tour)
        map.report = report
        let svg = map.svg()
        #expect(svg.contains("<g id=\"route-progress\""))
        #expect(svg.components(separatedBy: "<circle cx=").count > 2)
    }

    @Test("lint: a loop's meeting point is passed twice, said once per point with the pass it plays on; no order error")
    func lintExplainsRepeatedPasses() throws {
        let dir = try TemporaryDirectory()
        let route = RouteShapes.loop.map { Self.c($0.x, $0.y) }.map { "\($0.latitude),\($0.longitude)" }.joined(
            separator: ";")
        let places: [(Double, Double)] = [(0, 0), (200, 0), (200, 150), (0, 150), (0, 0)]
        let points = places.enumerated().map { i, p in
            let at = Self.c(p.0, p.1)
            return """
                {"id": "p\(i + 1)", "order": \(i + 1), "location": {"lat": \(at.latitude), "lng": \(at.longitude)},
                 "triggerRadiusMeters": 25, "content": {"en": {"title": "P\(i + 1)"}}}
                """
        }
        _ = try dir.write(
            "loop/tour.json",
            #"{"format": 1, "id": "l", "slug": "l", "route": ""# + route
                + #"", "languages": {"en": {"title": "L", "completionMessage": "Bye"}}, "points": ["#
                + points.joined(separator: ",") + "]}")
        let findings = TourLint().lint(folder: dir.file("loop")).findings
        #expect(!findings.contains { $0.check == "order-against-route" }, "\(findings)")
        let passes = findings.filter { $0.check == "route-passes-again" }
        #expect(passes.map(\.location) == ["point 1 (P1)", "point 5 (P5)"], "\(findings)")
        #expect(passes.first?.message.contains("2 times, at 0 m (this one), 700 m along it") == true, "\(passes)")
        #expect(passes.last?.message.contains("2 times, at 0 m, 700 m (this one) along it") == true, "\(passes)")
    }
}

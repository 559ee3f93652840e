import Foundation
import Positioning
import TourModel

/// Where along the tour's route the walker is: the input that lets the walk core tell the first
/// pass through a place from the second (docs/walk.md, "Route progress").
///
/// A pure value fed with the fixes the fix filter accepted. Each fix is matched to the route with
/// continuity: only the stretch from a little behind the current progress to as far as the walker
/// could have walked since it last matched (`maxRouteSpeed`) is searched, and within it a nearer
/// place along the route beats a slightly closer one further on. So a crossing, or a parallel
/// street further along the route, is not where the walker is. Progress moves forward only.
///
/// Off the route (no place in the window within `tolerance`), progress holds while the window
/// keeps growing with time, so a walker who left the route and comes back to it further on (a
/// detour, a shortcut across a square) is placed there. Beyond the window, it re-localises only
/// after a sustained move: fixes on the route further on, moving forward along it by
/// `relocaliseMovement`, for `relocalisePersistence` seconds, while their place on the current
/// stretch did not advance half as much (else they are following it, offset: a drift); or at once
/// after the fix filter believed a jump. A place further on than the window's slack, in the window
/// or beyond it, is taken only from a fix more than twice the tolerance from the stretch progress
/// stands on: where the route passes that stretch again (a loop's meeting point), a receiver
/// wandering round a group that waits there strays onto the later pass too; so is one further on
/// than walking could take the walker while the fix is hardly farther from where progress stands
/// (the route folds back: a drift across a hairpin). A receiver's course (Doppler, which a drift
/// leaves alone) keeps the match off stretches further on that turn away from it. Before the first fix on the route the walker is taken to be at its start (or,
/// resuming, at the last point triggered), and the window grows from there.
public struct RouteProgress: Sendable {
    public struct Configuration: Sendable, Hashable, Codable {
        /// The fastest a walker advances along the route (m/s): a walker cannot get further along
        /// it than this in the time since progress last matched, except by a shortcut.
        public var maxRouteSpeed = 3.0
        /// The distance a receiver's speeds say the walker went (while trusted; each interval at
        /// the lower of its two fixes' speeds), times this, stands for `maxRouteSpeed` when it
        /// is more: a cyclist at 8 m/s with a fix every 10 s is 80 m on at the next fix.
        public var measuredSpeedMargin = 1.25
        /// Metres a fix may be from a drawn route and still be on it (plus its error estimate).
        public var tolerance = 30.0
        /// The same without a drawn route (the straight lines between points stand for streets).
        public var pointsTolerance = 60.0
        /// How far behind progress a fix may match (metres): jitter and a walker turning back.
        public var behind = 60.0
        /// Slack ahead of the speed bound (metres): error estimates and the first fixes.
        public var ahead = 40.0
        /// A farther place must be this much closer, per metre further along, to win a match.
        public var continuityPenalty = 0.25
        /// Seconds of fixes on the route further on, off the window, before progress moves there.
        public var relocalisePersistence = 20.0
        /// Metres those fixes must move forward along the route: a walker standing where the route
        /// passes later (a loop's meeting point) is waiting, not taking a shortcut.
        public var relocaliseMovement = 20.0
        /// A receiver's course over ground is trusted from this speed (m/s) on: it comes from the
        /// Doppler shift, which a drift of the position (an urban canyon) leaves alone.
        public var headingSpeed = 0.8
        /// A place more than `headingAhead` metres further on whose stretch of route turns more
        /// than `headingTurn` degrees from the walker's course is not where a walker going that
        /// way is.
        public var headingTurn = 80.0
        /// The same without a drawn route, whose straight lines between points a walker's course
        /// may cross at right angles (a serpentine road between points on its legs: 80 degrees
        /// held a sparse receiver's progress back and caught a point up 180 s late), give or take
        /// 20 degrees of a course's noise; beyond that the walker goes back along the line.
        public var headingTurnWithoutRoute = 110.0
        /// Metres ahead of progress within which a stretch turning from the course may still be
        /// matched: a walker at a corner turns a few seconds after progress reaches it.
        public var headingAhead = 10.0
        /// Seconds without a fix from the receiver after which the walker may reappear further
        /// on, anywhere a walker could have got at `walkingPace` (m/s) in the gap.
        public var quietGap = 15.0
        public var walkingPace = 1.75
        /// Seconds without a fix on the route before the preview says the walker left it.
        public var leftAfter = 10.0

        public init() {}
        public static let `default` = Configuration()
    }

    /// What the preview shows of the walker's progress.
    public enum Event: Sendable, Hashable {
        /// The first fix on the route placed the walker `along` metres along it.
        case localised(along: Double)
        /// No fix on the route for `leftAfter` seconds; `offset` is the largest distance from it.
        case left(along: Double, offset: Double)
        /// Back on the route after leaving it.
        case rejoined(along: Double)
        /// Progress moved on by a shortcut or a believed jump.
        case relocalised(from: Double, to: Double)
    }

    public let route: TourRoute
    public let configuration: Configuration
    /// Metres along the route; nil until a fix has been on it.
    public private(set) var progress: Double?
    /// Progress may not start below this (a resumed walk: the last point heard).
    public private(set) var floor: Double
    /// The farthest place along the route the latest fix may be at: progress, or, off the route,
    /// its projection inside the window. Gates use this.
    public private(set) var reach: Double
    private var matchedAt: Date?
    /// A resumed walk (`resume(since:)`): until a fix places the walker, they were unseen since
    /// `matchedAt`.
    private var resumed = false
    private var offSince: Date?
    private var offMax = 0.0
    private var reportedLeft = false
    /// Fixes on the route further on: the farthest place, the first, since when, how many, and
    /// where the window's own match stood when they began.
    private var candidate: (along: Double, first: Double, since: Date, count: Int, windowFirst: Double)?
    /// After a believed jump: place the walker by the earliest pass, not the window.
    private var free = false
    /// Where the fixes were when they last moved `courseCheckMetres`, and the bearing of that
    /// move: a course is used only while it agrees with where the fixes themselves go.
    private var moveAnchor: Coordinate?
    private var movedBearing: Double?
    /// How far the receiver said the walker went (metres, by its Doppler speeds) since progress
    /// last matched, while the fix filter trusts its velocity: a cyclist goes farther than a
    /// walker. And the last fix's speed.
    private var travelled = 0.0
    private var lastSpeed: (time: Date, speed: Double)?

    /// - Parameter floor: where progress may start (a resumed walk: the last point triggered).
    public init(route: TourRoute, configuration: Configuration = .default, floor: Double = 0) {
        self.route = route
        self.configuration = configuration
        self.floor = max(0, floor)
        self.reach = max(0, floor)
    }

    /// A resumed walk, before its first fix: the walker was last known at the floor at `since`
    /// (on the fixes' clock), and nothing was heard of them since. The window grows from then, and
    /// the first fix on the route is the walker reappearing after a gap of that long: a walker
    /// who went on 80 s while the walk was down, further than the window's slack, was taken for
    /// a later pass of the last point and placed only when 130 m from it (points 11-13 s late).
    public mutating func resume(since: Date) {
        guard progress == nil else { return }
        matchedAt = since
        resumed = true
    }

    var tolerance: Double { route.source == .drawn ? configuration.tolerance : configuration.pointsTolerance }

    /// The fix filter believed a jump: the next fix on the route places the walker again, at the
    /// first place from a little behind the current progress on where the route passes it.
    public mutating func jumpBelieved() {
        if let progress { floor = max(floor, progress - configuration.behind) }
        progress = nil
        matchedAt = nil
        free = true
        candidate = nil
        travelled = 0
        lastSpeed = nil
        moveAnchor = nil
        movedBearing = nil
    }

    /// The walker's course at `fix`, when it can be used: the receiver's, while it goes at least
    /// `headingSpeed`, the fix filter still trusts its velocity, and it is within 90 degrees of
    /// the way the fixes themselves moved over their last `courseCheckMetres` (a receiver whose
    /// course is reversed or frozen would keep the match off the route it walks).
    private mutating func course(of fix: Fix, trusted: Bool) -> Double? {
        if let anchor = moveAnchor {
            if LocalDistance.metres(anchor, fix.coordinate) >= Self.courseCheckMetres {
                movedBearing = anchor.bearing(to: fix.coordinate)
                moveAnchor = fix.coordinate
            }
        } else {
            moveAnchor = fix.coordinate
        }
        guard trusted, (fix.speed ?? 0) >= configuration.headingSpeed, let track = fix.track, let moved = movedBearing
        else { return nil }
        return Geodesy.angle(between: track, and: moved) <= 90 ? track : nil
    }

    /// Metres the fixes must move for the way they go to be compared with the course.
    static let courseCheckMetres = 15.0

    /// Takes one accepted fix; returns what changed, for the preview. `courseTrusted`: whether the
    /// fix filter still trusts the receiver's velocity (it stops after the velocity has
    /// contradicted the positions).
    ///
    /// `quietFor`: seconds since the receiver's fix before this one, whatever the fix filter made
    /// of it (a gap in the fixes, not fixes refused).
    public mutating func update(_ fix: Fix, courseTrusted: Bool = true, quietFor: Double = 0) -> [Event] {
        guard !route.isEmpty else { return [] }
        let tolerance = self.tolerance + (fix.horizontalError ?? 0)
        if free {
            // After a believed jump: the earliest pass near the fix, from the floor on.
            guard let first = route.firstPass(near: fix.coordinate, within: tolerance, from: floor) else { return [] }
            let from = floor
            free = false
            place(at: first.along, time: fix.time)
            return [.relocalised(from: from, to: first.along)]
        }
        // Before the first fix on the route, the walker is taken to be at the floor (the route's
        // start, or the last point heard) from the first fix on: the window grows from there.
        let current = progress ?? floor
        let since = matchedAt ?? fix.time
        if matchedAt == nil { matchedAt = fix.time }
        let elapsed = max(0, fix.time.timeIntervalSince(since))
        // How far the receiver says the walker went since the last match: each interval at the
        // lower of its two fixes' speeds (one wild speed, a glitch of 20 m/s, counts for nothing),
        // while the fix filter trusts the velocity. Only beyond what anyone walks does it widen
        // the bounds: a rider. The fastest speed times the time since the last match let one
        // glitch open the window, the leap bound and the fold test across a U for as long as no
        // fix matched, and a drift there played points early.
        let reported = fix.speed.flatMap { $0.isFinite ? max(0, $0) : nil }
        if courseTrusted, let last = lastSpeed, let reported {
            let dt = fix.time.timeIntervalSince(last.time)
            if dt > 0 { travelled += min(reported, last.speed) * dt }
        } else if !courseTrusted {
            travelled = 0
        }
        lastSpeed = reported.map { (fix.time, $0) }
        defer { if matchedAt == fix.time { travelled = 0 } }
        let walked = configuration.maxRouteSpeed * elapsed
        let allowance = travelled > walked ? max(walked, configuration.measuredSpeedMargin * travelled) : walked
        let low = max(floor, current - configuration.behind)
        let high = current + allowance + configuration.ahead + tolerance
        let heading = course(of: fix, trusted: courseTrusted)
        let match = bestMatch(fix.coordinate, low: low, high: high, around: current, heading: heading)
        // Whether the walker has left the stretch progress stands on, by twice the tolerance:
        // where the route passes it again later (a loop's meeting point, the foot of a spur), a
        // receiver wandering round a group that waits strays onto the later stretch too, and
        // seems to be on it, even to move along it. Only a walker seen away from here is there.
        // Or whose course (trusted, from 0.8 m/s) goes back against the stretch progress stands
        // on and along the stretch matched further on: a U 50 m across is never twice the
        // tolerance from its way up, and after a drift there the way back's points were caught
        // up at the end, minutes late. A group waiting at a loop's meeting point has no course.
        let departed =
            route.nearest(to: fix.coordinate, from: low, to: current).offset > 2 * tolerance
            || heading.map { h in
                match.offset <= tolerance && route.vertices.count > 1
                    && route.turn(from: h, onSegment: route.segment(at: current)) > 120
                    && route.turn(from: h, onSegment: route.segment(at: match.along)) < 45
            } ?? false
        // A place further on than the window's slack; or further on than walking could take the
        // walker since the last match while the fix is hardly farther from where progress stands:
        // the route folds back there (a hairpin, a U between two streets) and a drifting receiver
        // strays across the fold, while walking there takes the route's way round.
        let advance = match.along - current
        let folded =
            advance > configuration.ahead + allowance
            && advance > route.offset(of: fix.coordinate, at: current) + configuration.ahead
        // A rider the receiver measured faster than walking may be that much further on.
        let riding = allowance - walked
        let leap = advance > configuration.ahead + tolerance + riding || folded
        // Back from a gap in the receiver's fixes (trees, an arcade) at a place a walker could
        // have reached in it: taken, near the stretch progress stands on or not. On a U 50 m
        // across, a walker reappearing on the way back after a minute is nearer the way up than
        // twice the tolerance, as a receiver wandering at a loop's meeting point is, and progress
        // stayed on the way up until the end. A receiver that wanders says something every
        // second; and a loop's end is not nearer by the continuity penalty (a quarter of the
        // loop) than where the group waits.
        let quiet = progress == nil && resumed ? max(quietFor, elapsed) : quietFor
        let reappeared =
            quiet >= configuration.quietGap
            && advance <= configuration.ahead + tolerance + configuration.walkingPace * quiet
        var events: [Event] = []
        if match.offset <= tolerance, leap, !departed, !reappeared {
            // A later pass of where the walker is: they are still here, and the window need not
            // grow. Gates keep to here too.
            reach = current
            if progress != nil { matchedAt = fix.time }
            candidate = nil
            return events
        }
        if match.offset <= tolerance {
            if progress == nil {
                events.append(.localised(along: match.along))
            } else if reportedLeft {
                events.append(.rejoined(along: max(current, match.along)))
            }
            place(at: max(current, match.along), time: fix.time)
            return events
        }
        // Off the route where the walker can be: progress holds; gates may use the projection,
        // unless it is a later pass of where the walker is.
        reach = leap && !departed ? current : max(current, match.along)
        if progress != nil {
            offMax = max(offMax, match.offset)
            let off = offSince ?? fix.time
            offSince = off
            if !reportedLeft, fix.time.timeIntervalSince(off) >= configuration.leftAfter {
                reportedLeft = true
                events.append(.left(along: current, offset: offMax))
            }
        }
        // On the route further on, and moving forward along it, for a while: a shortcut.
        if high < route.length, let ahead = route.firstPass(near: fix.coordinate, within: tolerance, from: high) {
            if var c = candidate, ahead.along >= c.along - configuration.behind,
                ahead.along <= c.along + configuration.maxRouteSpeed * max(0, fix.time.timeIntervalSince(c.since))
                    + configuration.ahead + tolerance
            {
                // Where the latest fix is, not the farthest any fix reached: noise only ever
                // pushed the farthest on, so a walker standing still seemed to move.
                c.along = ahead.along
                c.count += 1
                candidate = c
            } else {
                candidate = (ahead.along, ahead.along, fix.time, 1, match.along)
            }
            // Fixes that keep advancing along the stretch the walker is on as far as along the one
            // further on are following this one, offset (a drift towards a parallel street that
            // the route takes later in the same direction): not a shortcut. A match held at the
            // window's far end follows nothing: the window grows faster than anyone walks.
            let following = match.along < high - 1
            if let c = candidate, c.count >= 2, departed,
                fix.time.timeIntervalSince(c.since) >= configuration.relocalisePersistence,
                c.along - c.first >= configuration.relocaliseMovement,
                !following || match.along - c.windowFirst < (c.along - c.first) / 2
            {
                // Fixes that wandered back to where progress stands move nothing to say.
                if c.along > current { events.append(.relocalised(from: current, to: c.along)) }
                place(at: max(current, c.along), time: fix.time)
            }
        } else {
            candidate = nil
        }
        return events
    }

    private mutating func place(at along: Double, time: Date) {
        progress = along
        reach = along
        matchedAt = time
        offSince = nil
        offMax = 0
        reportedLeft = false
        candidate = nil
    }

    /// The best place for `c` between `low` and `high`: the closest, except that each metre
    /// further along than `around` costs `continuityPenalty` metres of distance. With the walker's
    /// course (`heading`), a place more than `headingAhead` further on whose stretch turns from it
    /// by more than `headingTurn` is left out: the route turns or folds back there (a hairpin, a U
    /// between two streets), and a drifting fix on the way out strays towards the way back.
    func bestMatch(
        _ c: Coordinate, low: Double, high: Double, around: Double, heading: Double? = nil
    ) -> TourRoute.Projection {
        let lo = max(0, min(low, route.length)), hi = max(lo, min(high, route.length))
        guard route.vertices.count > 1 else { return route.nearest(to: c, from: lo, to: hi) }
        var best = TourRoute.Projection(along: lo, offset: .infinity)
        var bestScore = Double.infinity
        let penalty = configuration.continuityPenalty
        // The straight lines between points are not streets: a walker going from one point to the
        // next along streets may go across the line (a zigzag road), not back along it.
        let headingTurn = route.source == .drawn ? configuration.headingTurn : configuration.headingTurnWithoutRoute
        for i in route.segment(at: lo)...route.segment(at: hi) {
            // The along-route cost alone rules out segments far from `around`, and only grows
            // further on.
            let start = route.cumulative[i], end = route.cumulative[i + 1]
            let alongCost = penalty * max(0, start - around, around - end)
            if alongCost >= bestScore {
                if start > around { break }
                continue
            }
            var p = route.project(c, onSegment: i, low: lo, high: hi)
            let turnLimit = around + configuration.headingAhead
            let turnsAway = heading.map { route.turn(from: $0, onSegment: i) > headingTurn } ?? false
            if turnsAway, p.along > turnLimit {
                // Only the part of the stretch within `headingAhead` is left to it.
                guard start <= turnLimit else { continue }
                p = route.project(c, onSegment: i, low: lo, high: min(hi, turnLimit))
            }
            // Where progress stands or behind it, a stretch the walker goes against costs the
            // tolerance: a walker who turned back short of a spur's tip is on its way back, which
            // runs along the way out, not walking the way out backwards (a walker who does still
            // matches it, nothing else being near).
            let against = turnsAway ? tolerance : 0
            let score = p.offset + penalty * abs(p.along - around) + against
            if score < bestScore {
                bestScore = score
                best = p
            }
        }
        return best
    }
}

import Foundation
import Positioning
import TourModel

/// The walk core: the triggering rules of docs/walk.md as a pure state machine.
///
/// Inputs come in with the time they happened; effects come out. No clock, no I/O, no audio: the
/// live walk and the desk preview drive the very same value, so what a curator previews is what
/// a walker hears, and every rule is a unit test with literal fixes.
public struct WalkCore: Sendable {
    public let tour: PlayableTour
    public let policy: WalkPolicy
    public private(set) var progress: WalkProgress

    /// Rule 1: which fixes count at all.
    private var filter: FixFilter
    /// Rule 2: qualifying fixes inside each point's radius, by index, since the last one outside.
    private var streaks: [Int]
    /// Rule 10: for each point the last accepted fix was inside of, or within its error's allowance
    /// of, since when it has been (nil: not near it). Such a point is not passed yet, whatever the
    /// route says; it holds later points back for `nearHold` at most.
    private var nearSince: [Date?]
    /// Seconds an earlier point the walker is at (but not confirmed in) holds a later one back: a
    /// walker inside it confirms it well within this; one lingering at its edge is not held for good.
    static let nearHold = 30.0
    /// Rule 10: the route, each point's station along it, and where the walker is along it.
    public let route: TourRoute
    public private(set) var routeProgress: RouteProgress
    /// The accepted fix before the latest, and the interval before it (confirmation by time, rule 2).
    private var previousAccepted: Fix?
    /// When the receiver's latest fix was stamped, whatever the filter made of it: the gap before
    /// an accepted fix tells route progress how long the receiver said nothing.
    private var lastHeard: Date?
    /// A resumed walk: when its last point triggered, on the walk's clock (the machine's in a
    /// live walk). The first fix puts it on the receiver's clock for route progress.
    private var resumedSince: Date?
    private var heardInterval: Double?
    private var previousInterval: Double?
    /// Intervals (s) beyond this are gaps, not a sparse receiver's rate.
    public static let maxSparseInterval = 15.0
    private let indexByID: [String: Int]
    /// The points' centres and radii, apart from their texts: the per-fix loop touches only these.
    private let centres: [Coordinate]
    /// The cosine of each centre's latitude, for `distance` at every fix.
    private let centreCosines: [Double]
    private let radii: [Double]

    public init(tour: PlayableTour, policy: WalkPolicy = WalkPolicy()) {
        self.tour = tour
        self.policy = policy
        self.progress = WalkProgress(
            tourID: tour.id, language: tour.language, pointIDs: tour.points.map(\.id),
            places: tour.points.map(\.coordinate))
        self.filter = FixFilter(configuration: policy.filterConfiguration)
        self.streaks = Array(repeating: 0, count: tour.points.count)
        self.nearSince = Array(repeating: nil, count: tour.points.count)
        var index: [String: Int] = [:]
        for (i, point) in tour.points.enumerated() { index[point.id] = i }
        self.indexByID = index
        self.centres = tour.points.map(\.coordinate)
        self.centreCosines = centres.map { cos($0.latitude * Self.toRadians) }
        self.radii = tour.points.map(\.triggerRadiusMeters)
        let route = TourRoute(tour: tour)
        self.route = route
        self.routeProgress = RouteProgress(route: route, configuration: policy.route)
    }

    /// Continues a walk from progress saved earlier (rule 9): after a crash, or after the walker
    /// quit (`abandoned`). Send `.start` next: a point that was playing when the walk stopped
    /// plays again from its beginning. Only a completed walk cannot be continued.
    ///
    /// A resumed walk is the same walk session: it keeps `startedAt`, so no second `tour_started`
    /// is tracked, and its eventual `tour_completed` (or another `tour_abandoned`) counts points
    /// and minutes from the original start. The `tour_abandoned` recorded when the walker quit
    /// stays true of that moment (the dashboard matches sessions by anonymous id and tour, so a
    /// second `tour_started` would count one walk twice).
    public init(tour: PlayableTour, policy: WalkPolicy = WalkPolicy(), resuming saved: WalkProgress) throws(WalkError) {
        self.init(tour: tour, policy: policy)
        if let problem = saved.problem {
            throw WalkError("the saved walk is inconsistent (\(problem)); start it again")
        }
        guard saved.tourID == tour.id else {
            throw WalkError("the saved walk belongs to another tour (\(saved.tourID)); start it again")
        }
        guard saved.outcome != .completed else {
            throw WalkError("this walk of the tour was completed; a new one starts at the first point")
        }
        // The tour may have changed since (an update, an edit): the walk keeps its points by
        // where they stand, then by id (`WalkProgress.fitted`).
        let pointIDs = tour.points.map(\.id)
        let places = tour.points.map(\.coordinate)
        let samePoints =
            saved.points.map(\.id) == pointIDs
            && zip(saved.points, places).allSatisfy { record, place in
                record.place.map { $0.distance(to: place) <= WalkProgress.samePlace } ?? true
            }
        if samePoints {
            self.progress = saved
            for i in progress.points.indices { progress.points[i].place = places[i] }
        } else {
            let fitted = saved.fitted(to: pointIDs, places: places)
            self.progress = fitted.progress
            self.pointChanges = fitted.changes
        }
        // Progress along the route starts again from the last point triggered: a point the walker
        // stands in when the walk resumes is armed by the route, not by presence.
        let points = progress.points
        if let last = points.lastIndex(where: { $0.triggeredAt != nil || $0.status == .missed }) {
            routeProgress = RouteProgress(
                route: route, configuration: policy.route, floor: route.stations[last] - radii[last])
            resumedSince = points[last].triggeredAt
        }
        self.progress.language = tour.language
        self.progress.outcome = nil
        self.progress.endedAt = nil
    }

    public var isFinished: Bool { progress.outcome != nil }

    /// How the saved walk was fitted to the tour's points, when they changed since it was saved.
    public private(set) var pointChanges: WalkProgress.PointChanges?

    /// Feeds one input; returns what the runtime must do, in order.
    public mutating func handle(_ input: WalkInput, at time: Date) -> [WalkEffect] {
        guard progress.outcome == nil else { return [] }
        // A fix changes progress only by triggering or passing over points; comparing the whole
        // progress for each of a three-hour walk's ten thousand fixes would cost more than the walk.
        let before: WalkProgress? = input.isFix && progress.startedAt != nil ? nil : progress
        var effects: [WalkEffect] = []
        if progress.startedAt == nil {
            begin(at: time, into: &effects)
        } else if input == .start {
            resumeAfterRestart(at: time, into: &effects)
        }
        switch input {
        case .start:
            break
        case .fix(let fix):
            handleFix(fix, at: time, into: &effects)
        case .audioFinished(let id):
            guard let playing = progress.playing, playing.pointID == id else { break }  // stale report
            finishCurrent(at: time, into: &effects)
        case .audioFailed(let id, let reason):
            guard let playing = progress.playing, playing.pointID == id, let index = indexByID[id] else { break }
            effects.append(.announce(tour.points[index], reason: reason))
            finishCurrent(at: time, into: &effects)
        case .command(let command):
            handleCommand(command, at: time, into: &effects)
        }
        let changed = before.map { $0 != progress } ?? effects.contains { $0.changesProgress }
        if changed {
            effects.append(.saveProgress(progress))
        }
        return effects
    }

    // MARK: - Starting

    private mutating func begin(at time: Date, into effects: inout [WalkEffect]) {
        progress.startedAt = time
        effects.append(.track(event(.tourStarted, at: time)))
    }

    /// After a restart the audio that was playing is gone: play it again, from the top. If the
    /// walk was paused, there is nothing left to resume either: the point goes back to the head
    /// of the queue and plays from the top on `resume`.
    private mutating func resumeAfterRestart(at time: Date, into effects: inout [WalkEffect]) {
        guard let playing = progress.playing, let index = indexByID[playing.pointID] else {
            // Only a walk fitted to changed points can stop with nothing playing and a queue,
            // or with its last point heard: go on as if the narration had just ended.
            playNext(at: time, into: &effects)
            return
        }
        if progress.isPaused {
            progress.playing = nil
            progress.queue.insert(playing.pointID, at: 0)
            return
        }
        effects.append(.play(tour.points[index]))
    }

    // MARK: - Fixes (rules 1, 2, 4, 5, 10)

    private mutating func handleFix(_ fix: Fix, at time: Date, into effects: inout [WalkEffect]) {
        if let since = resumedSince {
            // The walker has not been seen since the last point triggered: as long before this
            // fix, by the receiver's clock, as the walk's clock says. The two clocks may disagree
            // (a receiver months off, or only the machine's is right); the time between does not.
            resumedSince = nil
            routeProgress.resume(since: fix.time.addingTimeInterval(-max(0, time.timeIntervalSince(since))))
        }
        // A gap is three of the receiver's usual intervals at least (a receiver giving a fix
        // every 20 s is not quiet at each).
        var quiet = lastHeard.map { fix.time.timeIntervalSince($0) } ?? 0
        if quiet < 3 * (heardInterval ?? 1) { quiet = 0 }
        if let last = lastHeard, fix.time > last {
            heardInterval = fix.time.timeIntervalSince(last)
            lastHeard = fix.time
        } else if lastHeard == nil {
            lastHeard = fix.time
        }
        let verdict = filter.evaluate(fix)
        for dropped in filter.dropped { effects.append(.fixRejected(dropped, .implausibleJump)) }
        switch verdict {
        case .rejected(let reason):
            effects.append(.fixRejected(fix, reason))
        case .held:
            break
        case .accepted:
            let wasJump = filter.latestWasJump
            for earlier in filter.released where progress.outcome == nil {
                handleAccepted(earlier, jump: false, at: time, into: &effects)
            }
            if progress.outcome == nil { handleAccepted(fix, jump: wasJump, quiet: quiet, at: time, into: &effects) }
        }
    }

    private mutating func handleAccepted(
        _ fix: Fix, jump: Bool, quiet: Double = 0, at time: Date, into effects: inout [WalkEffect]
    ) {
        if jump { routeProgress.jumpBelieved() }
        for event in routeProgress.update(fix, courseTrusted: filter.trustsVelocity, quietFor: quiet) {
            effects.append(.route(event))
        }
        // Streaks run for every point not yet triggered, so an overlapping next point that the
        // walker already stands in is confirmed by the same fixes. A fix just outside by less
        // than its own error estimate neither adds to a streak nor breaks it: a slow walker
        // crossing the edge in noise is not sent back to zero by every fix.
        var sparse: Set<Int> = []
        let fixCosine = cos(fix.coordinate.latitude * Self.toRadians)
        // From a sparse receiver, one fix confirms alone, and so does the way from the fix before
        // (`SparseWay`): a point it passes deep inside was entered, wherever the two fixes fell.
        let sparseStep = isSparseStep(fix)
        let way = sparseStep ? previousAccepted.flatMap { SparseWay(from: $0, to: fix) } : nil
        for i in progress.nextIndex..<centres.count {
            // Farther for certain than the radius and the error's allowance (at most half the
            // radius): the streak ends, as the distance below would say, without its trigonometry.
            // Most points are that far from the walker at any moment.
            if Self.isSurelyFarther(
                from: fix.coordinate, to: centres[i], than: radii[i] * 1.5 + 1,
                cosines: (fixCosine, centreCosines[i]))
            {
                streaks[i] = 0
                nearSince[i] = nil
                if way?.passes(centres[i], radius: radii[i]) == true {
                    streaks[i] = 1
                    sparse.insert(i)
                }
                continue
            }
            let d = Self.distance(
                from: fix.coordinate, to: centres[i], within: radii[i], cosines: (fixCosine, centreCosines[i]))
            let allowance = min(fix.horizontalError ?? 0, radii[i] / 2)
            let isNear = d <= radii[i] + allowance
            nearSince[i] = isNear ? nearSince[i] ?? fix.time : nil
            if d <= radii[i] {
                streaks[i] += 1
            } else if !isNear {
                streaks[i] = 0
            }
            if sparseStep, streaks[i] <= 1,
                d + (fix.horizontalError ?? radii[i] / 4) / 2 <= radii[i]
                    || way?.passes(centres[i], radius: radii[i]) == true
            {
                streaks[i] = max(streaks[i], 1)
                sparse.insert(i)
            }
        }
        previousInterval = previousAccepted.map { fix.time.timeIntervalSince($0.time) }
        previousAccepted = fix
        // Several points may confirm on one fix (overlapping radii): trigger them in order.
        while progress.outcome == nil, let i = confirmedCandidate(sparse: sparse, at: fix.time) {
            trigger(
                index: i, type: .gps, fix: fix, distance: fix.coordinate.distance(to: centres[i]), at: time,
                into: &effects)
        }
    }

    /// Confirmation by time and accuracy: from a sparse receiver (a fix every few seconds), one fix
    /// confirms an entry when it is inside by more than its error estimate, or when the way to it
    /// from the fix before passes that deep inside (`SparseWay`), and the walker
    /// could have walked (or ridden, at the speed the receiver measured) to it from the fix
    /// before. So a receiver at 0.2 Hz is not made to wait a second fix, 5 s later; a single
    /// outlier still confirms nothing (it is not where a walker could have walked, or it is not
    /// deep inside).
    ///
    /// Whether `fix` is such a step: this interval and the one before it are both sparse (the
    /// receiver's own rate, not a gap), and the walker could have gone from the fix before to it.
    private func isSparseStep(_ fix: Fix) -> Bool {
        guard policy.confirmationFixes > 1, let previous = previousAccepted, let interval = previousInterval else {
            return false
        }
        let dt = fix.time.timeIntervalSince(previous.time)
        let sparse = policy.sparseInterval...Self.maxSparseInterval
        guard sparse.contains(dt), sparse.contains(interval) else { return false }
        // At walking pace, or at the pace the receiver itself measured at both fixes (Doppler,
        // which an outlier's position does not share): a cyclist covers 35 m between two fixes.
        let measured = min(fix.speed ?? 0, previous.speed ?? 0) * 1.25
        let slack = (fix.horizontalError ?? 0) + (previous.horizontalError ?? 0)
        return previous.coordinate.distance(to: fix.coordinate) - slack <= max(policy.walkingSpeed, measured) * dt
    }

    /// The geodesic distance when it matters, i.e. near the radius; far away, the spherical
    /// distance (within 0.6% of the ellipsoid's) already proves the fix is outside, at a fraction
    /// of the cost of Vincenty's iteration.
    public static func distance(from a: Coordinate, to b: Coordinate, within radius: Double) -> Double {
        distance(
            from: a, to: b, within: radius, cosines: (cos(a.latitude * toRadians), cos(b.latitude * toRadians)))
    }

    static let toRadians = Double.pi / 180

    /// The same, with the cosines of both latitudes given: the walk computes its centres' once,
    /// and the fix's once for all of them (the same values, so the same distances).
    static func distance(
        from a: Coordinate, to b: Coordinate, within radius: Double, cosines: (a: Double, b: Double)
    ) -> Double {
        let dLat = (b.latitude - a.latitude) * toRadians, dLng = (b.longitude - a.longitude) * toRadians
        let sinLat = sin(dLat / 2), sinLng = sin(dLng / 2)
        let h = sinLat * sinLat + cosines.a * cosines.b * sinLng * sinLng
        let spherical = 2 * Geodesy.meanRadius * asin(min(1, h.squareRoot()))
        if spherical > radius * 1.01 + 1 { return spherical }
        return a.distance(to: b)
    }

    /// Whether `distance(from:to:within:cosines:)` is beyond `metres` for certain, from a lower bound
    /// of it without trigonometry: the haversine `h = sin²(Δφ/2) + cos φa cos φb sin²(Δλ/2)` is at
    /// least `(Δφ² + cos φa cos φb Δλ²) / π²` (`sin x ≥ 2x/π` on [0, π/2], Δλ taken within ±π), and
    /// the distance `2R asin √h` at least `2R √h`; the ellipsoid's distance, used within the radius,
    /// is never asked for out here. The bound is about 2/π (0.64) of the distance at walking
    /// distances away from the poles, and never more than it (close to 1.0 for two points either
    /// side of a pole): the metre the walk adds to its limit covers rounding.
    static func isSurelyFarther(
        from a: Coordinate, to b: Coordinate, than metres: Double, cosines: (a: Double, b: Double)
    ) -> Bool {
        let dLat = (b.latitude - a.latitude) * toRadians
        var dLng = abs(b.longitude - a.longitude) * toRadians
        if dLng > .pi { dLng = 2 * .pi - dLng }
        let scale = 2 * Geodesy.meanRadius / .pi
        let bound = scale * scale * (dLat * dLat + cosines.a * cosines.b * dLng * dLng)
        return bound > metres * metres
    }

    /// The first point, in order, that may trigger now: confirmed, its stretch of route reached,
    /// and every earlier point still pending passed along the route (rule 10).
    private func confirmedCandidate(sparse: Set<Int>, at time: Date) -> Int? {
        guard progress.nextIndex < tour.points.count else { return nil }
        let last = policy.missed == .strict ? progress.nextIndex : tour.points.count - 1
        let needed = max(1, policy.confirmationFixes)
        for i in progress.nextIndex...last where streaks[i] >= needed || (sparse.contains(i) && streaks[i] >= 1) {
            guard hasReached(i) else { continue }
            // An earlier point the walker is at right now is ahead of them still, even where the
            // route says passed (a small point inside a large one's radius, reached at its edge):
            // it confirms on the next fixes and plays first (held `nearHold` at most).
            let isAt = { (j: Int) in nearSince[j].map { time.timeIntervalSince($0) < Self.nearHold } ?? false }
            return (progress.nextIndex..<i).allSatisfy { hasPassed($0) && !isAt($0) } ? i : nil
        }
        return nil
    }

    /// Slack (metres) before a point's stretch at which the walker counts as there: a route drawn
    /// a little off the street, a fix's error along it.
    public static let stretchSlack = 15.0

    /// Whether the walker's progress has reached point `i`'s stretch of route.
    public func hasReached(_ i: Int) -> Bool {
        routeProgress.reach >= route.stations[i] - radii[i] - Self.stretchSlack
    }

    /// Whether the walker's progress has passed point `i` (so it may be caught up or missed).
    func hasPassed(_ i: Int) -> Bool {
        routeProgress.reach >= route.stations[i] - min(radii[i], Self.stretchSlack)
    }

    private mutating func trigger(
        index i: Int, type: TriggerType, fix: Fix?, distance: Double?, at time: Date,
        into effects: inout [WalkEffect]
    ) {
        // Rule 4: points passed over on the way here.
        for j in progress.nextIndex..<i {
            switch policy.missed {
            case .play, .strict:
                markTriggered(j, type: .caughtUp, fix: nil, distance: nil, at: time, into: &effects)
            case .skip:
                progress.points[j].status = .missed
                effects.append(.missed(pointID: tour.points[j].id))
            }
        }
        markTriggered(i, type: type, fix: fix, distance: distance, at: time, into: &effects)
        progress.nextIndex = i + 1
    }

    private mutating func markTriggered(
        _ i: Int, type: TriggerType, fix: Fix?, distance: Double?, at time: Date,
        into effects: inout [WalkEffect]
    ) {
        let point = tour.points[i]
        progress.points[i].triggeredAt = time
        progress.points[i].triggerType = type
        progress.points[i].status = .queued
        effects.append(
            .triggered(
                PointTrigger(
                    pointID: point.id, order: point.order, index: i, type: type,
                    position: fix?.coordinate, distance: distance)))
        var properties: [String: WalkEventValue] = [
            "triggerType": .string(type.analyticsValue),
            "pointOrder": .int(point.order),
        ]
        if type == .caughtUp { properties["caughtUp"] = .bool(true) }
        effects.append(.track(event(.pointTriggered, pointID: point.id, at: time, extra: properties)))
        // Rule 3: never interrupt; queue behind whatever plays (or waits while paused).
        if progress.playing == nil && !progress.isPaused && progress.queue.isEmpty {
            startPlaying(i, isReplay: false, at: time, into: &effects)
        } else {
            progress.queue.append(point.id)
            effects.append(.queued(pointID: point.id, position: progress.queue.count))
        }
    }

    // MARK: - Audio (rules 3, 6, 7)

    private mutating func startPlaying(_ i: Int, isReplay: Bool, at time: Date, into effects: inout [WalkEffect]) {
        let point = tour.points[i]
        guard point.audio != nil else {
            // Rule 6: announced, and the walk goes on.
            effects.append(.announce(point, reason: "no audio in \(tour.language)"))
            if !isReplay { progress.points[i].status = .played }
            progress.lastHeard = point.id
            playNext(at: time, into: &effects)
            return
        }
        if !isReplay { progress.points[i].status = .playing }
        progress.playing = .init(pointID: point.id, isReplay: isReplay)
        effects.append(.play(point))
    }

    /// The current narration ended (finished, failed or skipped): count it, then go on.
    private mutating func finishCurrent(at time: Date, into effects: inout [WalkEffect]) {
        guard let playing = progress.playing, let i = indexByID[playing.pointID] else { return }
        progress.playing = nil
        if !playing.isReplay { progress.points[i].status = .played }
        progress.lastHeard = playing.pointID
        playNext(at: time, into: &effects)
    }

    private mutating func playNext(at time: Date, into effects: inout [WalkEffect]) {
        guard progress.playing == nil, !progress.isPaused else { return }
        if !progress.queue.isEmpty {
            let id = progress.queue.removeFirst()
            if let i = indexByID[id] {
                // A point sent back to the queue by `previous` is already marked played/playing.
                let isReplay = progress.points[i].status == .played
                startPlaying(i, isReplay: isReplay, at: time, into: &effects)
            }
            return
        }
        checkCompletion(at: time, into: &effects)
    }

    /// Rule 7: complete only once the last point has been heard (not merely triggered).
    private mutating func checkCompletion(at time: Date, into effects: inout [WalkEffect]) {
        guard progress.outcome == nil, progress.playing == nil, progress.queue.isEmpty,
            let last = progress.points.last, last.status == .played
        else { return }
        progress.outcome = .completed
        progress.endedAt = time
        effects.append(.track(event(.tourCompleted, at: time, extra: endProperties(at: time))))
        effects.append(.completed(message: tour.completionMessage))
    }

    // MARK: - Commands (rule 8)

    private mutating func handleCommand(_ command: WalkAction, at time: Date, into effects: inout [WalkEffect]) {
        switch command {
        case .skip:
            if progress.playing != nil {
                effects.append(.stop)
                finishCurrent(at: time, into: &effects)
            } else if progress.queue.isEmpty, progress.nextIndex < tour.points.count {
                // Nothing to skip: the walker asks for the next point by hand.
                let i = progress.nextIndex
                markTriggered(i, type: .manual, fix: nil, distance: nil, at: time, into: &effects)
                progress.nextIndex = i + 1
                streaks[i] = 0
            } else {
                playNext(at: time, into: &effects)
            }
        case .replay:
            guard let id = progress.playing?.pointID ?? progress.lastHeard, let i = indexByID[id] else { return }
            if let playing = progress.playing {
                effects.append(.stop)
                progress.playing = nil
                startPlaying(i, isReplay: playing.isReplay, at: time, into: &effects)
            } else {
                startPlaying(i, isReplay: true, at: time, into: &effects)
            }
        case .previous:
            guard let anchorID = progress.playing?.pointID ?? progress.lastHeard,
                let anchor = indexByID[anchorID]
            else { return }
            guard let earlier = progress.points[..<anchor].lastIndex(where: { $0.status == .played }) else {
                handleCommand(.replay, at: time, into: &effects)  // nothing before it: start it over
                return
            }
            if let playing = progress.playing {
                effects.append(.stop)
                progress.playing = nil
                // The interrupted point is not lost: it plays again after the one asked for.
                if !playing.isReplay { progress.queue.insert(playing.pointID, at: 0) }
            }
            startPlaying(earlier, isReplay: true, at: time, into: &effects)
        case .pause:
            guard !progress.isPaused else { return }
            progress.isPaused = true
            if progress.playing != nil { effects.append(.pause) }
        case .resume:
            guard progress.isPaused else { return }
            progress.isPaused = false
            if progress.playing != nil {
                effects.append(.resume)
            } else {
                playNext(at: time, into: &effects)
            }
        case .quit:
            // The narration stops, but the progress keeps it as playing and the queue as it was:
            // exactly what a crash at this moment would leave, so resuming plays it again from
            // its start and then the queue, in order.
            if progress.playing != nil { effects.append(.stop) }
            progress.outcome = .abandoned
            progress.endedAt = time
            effects.append(.track(event(.tourAbandoned, at: time, extra: endProperties(at: time))))
            effects.append(.abandoned)
        }
    }

    // MARK: - Analytics

    private func endProperties(at time: Date) -> [String: WalkEventValue] {
        let minutes = progress.startedAt.map { max(0, time.timeIntervalSince($0)) / 60 } ?? 0
        return [
            "durationMinutes": .int(Int(saturating: minutes.rounded())),
            "pointsVisited": .int(progress.pointsVisited),
            "lastPointIndex": .int(progress.lastPointIndex),
        ]
    }

    private func event(
        _ name: WalkEvent.Name, pointID: String? = nil, at time: Date,
        extra: [String: WalkEventValue] = [:]
    ) -> WalkEvent {
        var properties = extra
        properties["platform"] = .string(AnalyticsEvent.platform)
        return WalkEvent(
            name: name, tourID: tour.id, pointID: pointID, language: tour.language,
            timestamp: time, properties: properties)
    }
}

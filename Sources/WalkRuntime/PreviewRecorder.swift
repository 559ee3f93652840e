import Foundation
import Positioning
import TourModel
import Walk

/// Turns the walk core's inputs and effects into a `PreviewReport`, as they happen.
///
/// Memory depends on the number of points and events, never on the length of the trace: the
/// per-fix work is a few counters, and the timeline keeps at most `maxNotes` ignored-fix and
/// gap entries (a receiver that is wrong all afternoon should not make a report nobody reads).
public struct PreviewRecorder: Sendable {
    public let tour: PlayableTour
    public let policy: WalkPolicy
    /// A stretch without a usable fix at least this long is a gap worth a timeline line, when it
    /// is also twice the receiver's usual interval (a receiver giving a fix every 5 s is not in a
    /// gap at each fix); before the receiver has shown its rate, only past `WalkCore`'s longest
    /// sparse interval.
    public var gapThreshold: Double = 5
    /// The latest intervals between accepted fixes: the receiver's usual one is their median.
    private var intervals: [Double] = []
    public var maxNotes = 50

    private var origin: Date?
    private var lastTime: Date?
    private var fixes = 0
    private var accepted = 0
    private var rejected: [String: Int] = [:]
    private var lastAccepted: Fix?
    /// When the last accepted fix was, on the preview's clock (a receiver's clock that ran ahead
    /// for a while is not a gap of that length).
    private var lastAcceptedAt: Date?
    private var notes = 0
    private var omitted = 0
    private var timeline: [PreviewReport.Entry] = []
    private var events: [WalkEvent] = []
    private var points: [PreviewReport.Point]
    private var indexByID: [String: Int] = [:]
    private var playing: (index: Int, since: Date)?
    private var silenceSince: Date?
    private var longestSilence: Double = 0
    private var endTime: Date?
    private var completed = false
    /// How near the walk came to the first point, while it had not triggered: a trace of another
    /// place (or a tour whose first point is misplaced) shows here.
    private var closestToFirst: Double?

    /// Route progress as it went (rule 10): samples for the report and the map, thinned to at
    /// most `maxProgressSamples` by keeping one in two when full.
    public let route: TourRoute
    public var maxProgressSamples = 2_000
    private var progressSamples: [[Double]] = []
    private var sampleStride = 1
    private var sampleCounter = 0
    private var latestProgress: Double?

    public init(tour: PlayableTour, policy: WalkPolicy, route: TourRoute? = nil) {
        self.tour = tour
        self.policy = policy
        let route = route ?? TourRoute(tour: tour)
        self.route = route
        points = tour.points.enumerated().map { i, p in
            PreviewReport.Point(
                order: p.order, id: p.id, title: p.title, status: .notReached,
                stationMeters: route.stations.indices.contains(i) ? (route.stations[i] * 10).rounded() / 10 : nil)
        }
        for (i, p) in tour.points.enumerated() { indexByID[p.id] = i }
    }

    public var isCompleted: Bool { completed }

    /// Seconds from the first input, the preview's clock for people.
    public func offset(_ time: Date) -> Double {
        guard let origin else { return 0 }
        return (time.timeIntervalSince(origin) * 1000).rounded() / 1000
    }

    public mutating func record(_ input: WalkInput, at time: Date, effects: [WalkEffect]) {
        if origin == nil {
            origin = time
            silenceSince = time
            add(.start, at: time, "walk starts: \(tour.title) [\(tour.language)]")
        }
        lastTime = max(lastTime ?? time, time)  // a trace that jumps back in time does not end earlier
        if case .audioFinished(let id) = input, let (index, since) = playing, tour.points[index].id == id {
            let end = offset(time)
            points[index].audio?.endOffsetSeconds = end
            points[index].audio?.durationSeconds = (time.timeIntervalSince(since) * 1000).rounded() / 1000
            if points[index].status == .interrupted { points[index].status = .heard }
            add(.audioEnd, at: time, order: tour.points[index].order, "◼ \(tour.points[index].title) ends")
            playing = nil
            silenceSince = time
        }
        if case .fix(let fix) = input {
            fixes += 1
            var wasRejected = false
            for effect in effects {
                guard case .fixRejected(let rejected, _) = effect else { continue }
                if rejected == fix { wasRejected = true } else { accepted -= 1 }  // held, then dropped
            }
            if !wasRejected {
                accepted += 1
                if let last = lastAcceptedAt {
                    let gap = time.timeIntervalSince(last)
                    let usual = intervals.isEmpty ? nil : intervals.sorted()[intervals.count / 2]
                    if gap >= gapThreshold, gap >= usual.map({ 2 * $0 }) ?? WalkCore.maxSparseInterval {
                        note(
                            .gpsGap, at: time,
                            "no usable fix for \(WalkTime.duration(gap)) (since \(WalkTime.offset(offset(last))))")
                    }
                    if gap > 0 { intervals = intervals.suffix(8) + [gap] }
                }
                lastAccepted = fix
                lastAcceptedAt = time
                if let first = tour.points.first, points[0].trigger == nil {
                    let d = WalkCore.distance(
                        from: fix.coordinate, to: first.coordinate, within: first.triggerRadiusMeters)
                    closestToFirst = min(closestToFirst ?? d, d)
                }
            }
        }
        for effect in effects { apply(effect, at: time) }
    }

    private mutating func apply(_ effect: WalkEffect, at time: Date) {
        switch effect {
        case .triggered(let trigger):
            let point = tour.points[trigger.index]
            points[trigger.index].trigger = .init(
                time: ISO8601.format(time), offsetSeconds: offset(time), type: trigger.type,
                latitude: trigger.position?.latitude,
                longitude: trigger.position?.longitude,
                distanceMeters: trigger.distance.map { ($0 * 10).rounded() / 10 })
            points[trigger.index].status = .interrupted
            var text = "▶ \(point.order) \(point.title) triggered"
            switch trigger.type {
            case .gps:
                if let p = trigger.position, let d = trigger.distance {
                    text +=
                        " at \(p), \(Int(d.rounded())) m from the point (radius \(Int(point.triggerRadiusMeters)) m)"
                }
            case .caughtUp: text += ": missed on the way, played before the next one"
            case .manual: text += " by hand"
            }
            add(.triggered, at: time, order: point.order, text)
        case .queued(let id, let position):
            guard let i = indexByID[id] else { return }
            add(
                .queued, at: time, order: tour.points[i].order,
                "  \(tour.points[i].title) waits in the queue (position \(position))")
        case .play(let point):
            guard let i = indexByID[point.id] else { return }
            closeSilence(at: time)
            playing = (i, time)
            if points[i].audio == nil {
                points[i].audio = .init(startOffsetSeconds: offset(time))
                if let t = points[i].trigger {
                    points[i].queueWaitSeconds = ((offset(time) - t.offsetSeconds) * 1000).rounded() / 1000
                }
            }
            add(.audioStart, at: time, order: point.order, "♪ \(point.title) plays")
        case .announce(let point, let reason):
            guard let i = indexByID[point.id] else { return }
            if playing?.index == i { playing = nil; silenceSince = time }
            points[i].status = .announced
            points[i].note = reason
            points[i].audio = nil  // nothing was heard
            if let t = points[i].trigger, points[i].queueWaitSeconds == nil {
                points[i].queueWaitSeconds = ((offset(time) - t.offsetSeconds) * 1000).rounded() / 1000
            }
            add(.announced, at: time, order: point.order, "ℹ \(point.title) announced without audio (\(reason))")
        case .missed(let id):
            guard let i = indexByID[id] else { return }
            points[i].status = .missed
            add(
                .missed, at: time, order: tour.points[i].order,
                "✗ \(tour.points[i].order) \(tour.points[i].title) missed")
        case .fixRejected(let fix, let reason):
            rejected[reason.rawValue, default: 0] += 1
            if reason == .implausibleJump, let last = lastAccepted {
                let d = last.coordinate.distance(to: fix.coordinate)
                note(
                    .ignoredFix, at: time, "ignored a fix \(Int(d.rounded())) m away from the walker (implausible jump)"
                )
            }
        case .route(let event):
            switch event {
            case .localised(let along):
                if along > Self.joinedReportDistance {
                    add(.joinedRoute, at: time, "joined the route \(WalkTime.distance(along)) along it\(place(along))")
                }
            case .left(let along, let offset):
                add(
                    .leftRoute, at: time,
                    "left the route \(WalkTime.distance(offset)) (progress \(WalkTime.distance(along))\(place(along)))")
            case .rejoined(let along):
                add(.rejoinedRoute, at: time, "back on the route at \(WalkTime.distance(along))\(place(along))")
            case .relocalised(let from, let to):
                add(
                    .relocalised, at: time,
                    "progress re-localised\(place(to)): \(WalkTime.distance(from)) → \(WalkTime.distance(to)) along the route"
                )
            }
        case .track(let event):
            events.append(event)
        case .completed(let message):
            closeSilence(at: time)
            completed = true
            endTime = time
            add(.completed, at: time, "✓ tour completed" + (message.map { ": \($0)" } ?? ""))
        case .abandoned:
            closeSilence(at: time)
            endTime = time
            if let (i, _) = playing { points[i].status = .interrupted }
            playing = nil
            if points.first?.trigger == nil, let closest = closestToFirst, let first = tour.points.first {
                add(
                    .traceEnd, at: time,
                    "the walk never came within \(WalkTime.distance(closest)) of point \(first.order) "
                        + "(radius \(Int(first.triggerRadiusMeters)) m): is this a trace of this tour?")
            }
            add(.abandoned, at: time, "✗ trace ends before the tour does: tour abandoned")
        case .stop, .pause, .resume, .saveProgress:
            break
        }
    }

    /// A walker placed this far along the route at the first fix on it is worth a timeline line.
    static let joinedReportDistance = 50.0

    /// `, at point 4` / `, after point 3` for a place along the route.
    private func place(_ along: Double) -> String {
        guard !route.stations.isEmpty else { return "" }
        var last: Int?
        for i in route.stations.indices where route.stations[i] - tour.points[i].triggerRadiusMeters <= along {
            last = i
        }
        guard let i = last else { return ", before point \(tour.points[0].order)" }
        let atPoint = abs(along - route.stations[i]) <= tour.points[i].triggerRadiusMeters
        return atPoint ? ", at point \(tour.points[i].order)" : ", after point \(tour.points[i].order)"
    }

    /// Keeps where progress stood after an accepted fix (the map draws it).
    public mutating func sampleProgress(_ along: Double?, at time: Date) {
        guard let along else { return }
        latestProgress = along
        sampleCounter += 1
        guard sampleCounter >= sampleStride else { return }
        sampleCounter = 0
        if let last = progressSamples.last, last[1] == (along * 10).rounded() / 10 { return }
        progressSamples.append([offset(time), (along * 10).rounded() / 10])
        if progressSamples.count >= maxProgressSamples {
            progressSamples = progressSamples.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
            sampleStride *= 2
        }
    }

    private mutating func closeSilence(at time: Date) {
        if let since = silenceSince {
            longestSilence = max(longestSilence, time.timeIntervalSince(since))
            silenceSince = nil
        }
    }

    private mutating func add(_ kind: PreviewReport.Entry.Kind, at time: Date, order: Int? = nil, _ text: String) {
        timeline.append(
            .init(offsetSeconds: offset(time), time: ISO8601.format(time), kind: kind, pointOrder: order, text: text))
    }

    private mutating func note(_ kind: PreviewReport.Entry.Kind, at time: Date, _ text: String) {
        if notes < maxNotes {
            notes += 1
            add(kind, at: time, text)
        } else {
            omitted += 1
        }
    }

    public func report() -> PreviewReport {
        var points = points
        for i in points.indices where points[i].status == .interrupted && points[i].audio?.endOffsetSeconds != nil {
            points[i].status = .heard
        }
        let heard = points.count { $0.status == .heard }
        let announced = points.count { $0.status == .announced }
        let wait = points.compactMap(\.queueWaitSeconds).reduce(0, +)
        var silence = longestSilence
        if let since = silenceSince, let end = endTime ?? lastTime {
            silence = max(silence, end.timeIntervalSince(since))
        }
        let end = endTime ?? lastTime
        return PreviewReport(
            tour: .init(id: tour.id, slug: tour.slug, language: tour.language, title: tour.title),
            policy: policy,
            traceStart: origin.map(ISO8601.format),
            points: points,
            timeline: timeline,
            timelineOmitted: omitted,
            events: events,
            summary: .init(
                pointsHeard: heard, pointsAnnounced: announced, pointsTotal: points.count,
                totalQueueWaitSeconds: (wait * 1000).rounded() / 1000,
                longestSilenceSeconds: (silence * 1000).rounded() / 1000,
                completed: completed, endOffsetSeconds: end.map(offset) ?? 0,
                fixes: fixes, acceptedFixes: accepted, rejectedFixes: rejected),
            completionMessage: completed ? tour.completionMessage : nil,
            route: route.isEmpty
                ? nil
                : .init(
                    source: route.source, unfitReason: route.unfitReason,
                    lengthMeters: (route.length * 10).rounded() / 10,
                    progressMeters: latestProgress.map { ($0 * 10).rounded() / 10 },
                    progress: progressSamples))
    }
}

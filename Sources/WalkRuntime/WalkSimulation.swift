import Foundation
import Playback
import Positioning
import TourModel
import Walk

/// The simulated runtime: drives the walk core from a recorded trace, in the trace's own time.
///
/// Audio "plays" in virtual time: a narration that starts at t ends at t + its decoded length,
/// and that end reaches the core before any fix stamped later. So a three-hour walk previews in
/// well under a second, and the timeline is exactly what a walker would have experienced.
/// When the trace ends the walker stays where they are until the narration in progress and the
/// queue behind it end; if the tour is still not complete then, they quit (`tour_abandoned`).
public struct WalkSimulation: Sendable {
    /// How long a point's narration lasts, or why it cannot play.
    public enum Narration: Sendable, Hashable {
        case seconds(Double)
        case unplayable(String)
    }

    public let tour: PlayableTour
    public let policy: WalkPolicy
    /// By point id; points without audio need no entry.
    public let narrations: [String: Narration]

    public init(tour: PlayableTour, policy: WalkPolicy = WalkPolicy(), narrations: [String: Narration]) {
        self.tour = tour
        self.policy = policy
        self.narrations = narrations
    }

    /// Decodes every narration of `tour` once to learn its exact length (`AudioProbe`). A file
    /// that cannot be decoded is `unplayable` with the decoder's message, as the walk would find it.
    public static func probeNarrations(of tour: PlayableTour) -> [String: Narration] {
        var result: [String: Narration] = [:]
        for point in tour.points {
            guard let url = point.audio else { continue }
            do {
                result[point.id] = .seconds(try AudioProbe.inspect(url).duration)
            } catch {
                result[point.id] = .unplayable(error.message)
            }
        }
        return result
    }

    /// Runs the whole walk and returns the report. `onStep` sees every input with its effects, in
    /// order (the real-time preview uses it to schedule sound and subtitles).
    public func run(
        fixes: some Sequence<Fix>,
        onStep: (WalkInput, Date, [WalkEffect]) -> Void = { _, _, _ in }
    ) -> PreviewReport {
        let core = WalkCore(tour: tour, policy: policy)
        var state = State(
            core: core, recorder: PreviewRecorder(tour: tour, policy: policy, route: core.route),
            narrations: narrations)
        var started = false
        var clock = TraceClock(stepConfirmations: policy.filterConfiguration.clockStepConfirmations)
        /// Feeds one fix at its time; false once the walk is over.
        func feed(_ fix: Fix, at time: Date) -> Bool {
            if !started {
                state.feed(.start, at: time, onStep)
                started = true
            }
            state.finishAudio(upTo: time, onStep)
            if state.core.isFinished { return false }
            state.feed(.fix(fix), at: time, onStep)
            return !state.core.isFinished
        }
        reading: for fix in fixes {
            for (fix, time) in clock.push(fix) where !feed(fix, at: time) { break reading }
        }
        if !state.core.isFinished {
            for (fix, time) in clock.finish() where !feed(fix, at: time) { break }
        }
        guard started else { return state.recorder.report() }
        state.finishAudio(upTo: .distantFuture, onStep)
        if !state.core.isFinished, let last = state.lastTime {
            state.feed(.command(.quit), at: last, onStep)
        }
        return state.recorder.report()
    }

    private struct State {
        var core: WalkCore
        var recorder: PreviewRecorder
        let narrations: [String: Narration]
        var audioEnd: (id: String, time: Date)?
        var lastTime: Date?

        /// Delivers every narration end due by `time`, in time order (each may start the next).
        mutating func finishAudio(upTo time: Date, _ onStep: (WalkInput, Date, [WalkEffect]) -> Void) {
            while let end = audioEnd, end.time <= time {
                audioEnd = nil
                feed(.audioFinished(pointID: end.id), at: end.time, onStep)
            }
        }

        mutating func feed(_ input: WalkInput, at time: Date, _ onStep: (WalkInput, Date, [WalkEffect]) -> Void) {
            // Inputs the effects cause at the same instant (a narration that cannot play).
            var caused: [WalkInput] = []
            var current: WalkInput? = input
            while let step = current {
                let effects = core.handle(step, at: time)
                recorder.record(step, at: time, effects: effects)
                if step.isFix { recorder.sampleProgress(core.routeProgress.progress, at: time) }
                onStep(step, time, effects)
                lastTime = max(lastTime ?? time, time)
                for effect in effects {
                    switch effect {
                    case .play(let point):
                        switch narrations[point.id] {
                        case .seconds(let d)?:
                            audioEnd = (point.id, time.addingTimeInterval(d))
                        case .unplayable(let reason)?:
                            caused.append(.audioFailed(pointID: point.id, reason: reason))
                        case nil:
                            caused.append(.audioFailed(pointID: point.id, reason: "no narration length known"))
                        }
                    case .stop:
                        audioEnd = nil
                    default:
                        break
                    }
                }
                current = caused.isEmpty ? nil : caused.removeFirst()
            }
        }
    }
}

/// The preview's clock: the trace's own times, except that they never run backwards.
///
/// A walker's time runs on whatever the receiver's clock does. A fix stamped before the one
/// before it adds no time; the clock follows the receiver's new times once the fix filter's
/// `clockStepConfirmations` fixes in a row are stamped earlier but move forward among themselves
/// (its clock stepped back: the filter's rule 8), so a single wild stamp neither stops nor shifts
/// the walk.
///
/// A step forward of more than `bigStep` is held, with the fixes after it, until it is settled:
/// a fix stamped back before them, on the old times (after one held fix, anywhere after it;
/// after several, where the old times would be by now), makes the held fixes wild stamps, which
/// count for nothing (each is given a time between the fixes on either side); the fixes going on for
/// `settleAfter` (counted as fixes at the receiver's interval; `mostHeld` at most), or the trace
/// ending after two of them, make the step a real gap, which counts. A step forward that lands
/// where the times stepped back from would be by now is the clock coming back, not a gap. A
/// receiver whose clock ran an hour ahead (or behind) for five seconds put every later event of
/// the preview an hour late, where the walker heard them on time.
///
/// A trace whose first epochs have no date (GGA before the first RMC) has them on 1970-01-01:
/// they are held until the first dated fix and put on its day (or the day before, across
/// midnight), fixes and times, as the live walk's gpsd source dates them; a preview gave such a
/// recording's start, timeline and events on 1970-01-01. A trace with no date for `mostHeld`
/// fixes keeps its times of day, and the step to a later first date counts by the time of day
/// alone.
public struct TraceClock: Sendable {
    public let stepConfirmations: Int
    static let bigStep = 60.0
    /// How long (the receiver's fixes at its interval) a big step forward waits for the clock to
    /// come back before it counts as a real gap.
    static let settleAfter = 600.0
    /// The most fixes held meanwhile (a 10 Hz receiver's ten minutes).
    static let mostHeld = 6000
    private var virtual: Date?
    private var lastRaw: Date?
    private var earlier: [Date] = []
    /// The receiver's interval: the median of its last steps forward of `bigStep` or less (one
    /// real 50 s gap is not its interval).
    private var steps: [Double] = []
    private var interval: Double { steps.isEmpty ? 1 : steps.sorted()[steps.count / 2] }
    /// A big step forward not yet settled: the receiver's time and the clock's before it, and the
    /// fixes since, the first of them the step.
    private struct Held {
        var before: Date
        var virtualBefore: Date
        var fixes: [Fix]
        /// Whether the fixes went on steadily among themselves (forward, by `bigStep` at most): a
        /// clock off by as much all along.
        var steady = true

        mutating func append(_ fix: Fix) {
            let d = fix.time.timeIntervalSince(fixes[fixes.count - 1].time)
            if d < 0 || d > TraceClock.bigStep { steady = false }
            fixes.append(fix)
        }
    }
    private var pending: Held?
    /// Whether the trace has given no date yet: its undated fixes are held meanwhile.
    private var dating = true
    private var undated: [Fix] = []
    /// The last step back followed: the receiver's time before it and the clock's then.
    private var steppedBack: (from: Date, at: Date)?

    public init(stepConfirmations: Int) {
        self.stepConfirmations = stepConfirmations
    }

    /// How far past where the old times would be a fix may land and still be back on them (a
    /// receiver may drop a few epochs as its clock comes right).
    private var slack: Double { max(5, 3 * interval) }

    /// The fixes whose time is now known, with it, in the trace's order.
    public mutating func push(_ fix: Fix) -> [(fix: Fix, time: Date)] {
        if dating {
            if NMEAParser.isUndated(fix.time), undated.count < Self.mostHeld {
                undated.append(fix)
                return []
            }
            return releaseUndated(dating: fix) + take(fix)
        }
        return take(fix)
    }

    /// The undated fixes held, each put on the day nearest `first` (the first dated fix) as the
    /// live walk's gpsd source puts them, run through the clock. With no date (`first` undated:
    /// the trace ends, or `mostHeld` fixes came without one) they keep their times of day.
    private mutating func releaseUndated(dating first: Fix?) -> [(fix: Fix, time: Date)] {
        dating = false
        var out: [(fix: Fix, time: Date)] = []
        for var fix in undated {
            if let first, !NMEAParser.isUndated(first.time) { fix.time = NMEAParser.redate(fix.time, near: first.time) }
            out += take(fix)
        }
        undated = []
        return out
    }

    private mutating func take(_ fix: Fix) -> [(fix: Fix, time: Date)] {
        guard let step = pending else { return advance(fix) }
        let first = step.fixes[0].time, last = step.fixes[step.fixes.count - 1].time
        // Where the old times would be by now: when the held fixes went on steadily, their span
        // and two intervals more; else an interval on for each held.
        let expected =
            step.steady
            ? last.timeIntervalSince(first) + 2 * interval : Double(step.fixes.count + 1) * interval
        let back = fix.time.timeIntervalSince(step.before)
        // A return goes back in time from the fixes held (fixes going on after a real gap never
        // do: a sparse receiver's next fix 25 s after a 61 s pause was taken for one, and points
        // played up to 106 s early). After one fix alone, that one was wild, however long the
        // receiver then said nothing (a few dropped epochs, a tunnel); after several, it lands
        // where the old times would be, give or take `slack`: neither sooner (a real gap of 61 s
        // and, three minutes on, a clock stepping back 100 s) nor later (the same gap and a step
        // back of 35 s lands 28 s past it).
        if fix.time < last, back >= 0, step.fixes.count == 1 || abs(back - expected) <= slack {
            // The held fixes were wild stamps: each between the fixes on either side, and the
            // clock goes on from this one.
            pending = nil
            let n = Double(step.fixes.count + 1)
            var out = step.fixes.enumerated().map { k, held in
                (fix: held, time: step.virtualBefore.addingTimeInterval(back * Double(k + 1) / n))
            }
            let now = step.virtualBefore.addingTimeInterval(back)
            virtual = now
            lastRaw = fix.time
            earlier = []
            out.append((fix, now))
            return out
        }
        pending?.append(fix)
        if Double(step.fixes.count + 1) * interval > Self.settleAfter || step.fixes.count + 1 >= Self.mostHeld {
            return settle()
        }
        return []
    }

    /// The end of the trace: a step still held counts as a real gap once a second fix went on from
    /// it; a last fix alone on new times is a wild stamp.
    public mutating func finish() -> [(fix: Fix, time: Date)] {
        var out = dating ? releaseUndated(dating: nil) : []
        // Settling one step may hold the next (two real gaps near the end: the fixes after the
        // second were lost, and a tour that went on there was abandoned).
        while let step = pending {
            guard step.fixes.count >= 2 else {
                pending = nil
                out.append((step.fixes[0], step.virtualBefore))
                break
            }
            out += settle()
        }
        return out
    }

    /// The step held is a real gap: its time counts, and the fixes held after it go on from it.
    private mutating func settle() -> [(fix: Fix, time: Date)] {
        guard let step = pending else { return [] }
        pending = nil
        let now = step.virtualBefore.addingTimeInterval(step.fixes[0].time.timeIntervalSince(step.before))
        virtual = now
        lastRaw = step.fixes[0].time
        earlier = []
        steppedBack = nil
        var out = [(fix: step.fixes[0], time: now)]
        for fix in step.fixes.dropFirst() {
            // A later big step among them is held in its turn.
            if pending != nil { pending?.append(fix) } else { out += advance(fix) }
        }
        return out
    }

    private mutating func advance(_ fix: Fix) -> [(fix: Fix, time: Date)] {
        guard var now = virtual, var last = lastRaw else {
            virtual = fix.time
            lastRaw = fix.time
            return [(fix, fix.time)]
        }
        if NMEAParser.isUndated(last), !NMEAParser.isUndated(fix.time) {
            // The first date: the undated epochs were on its day, or the one before.
            last = NMEAParser.redate(last, near: fix.time)
            lastRaw = last
        }
        var d = fix.time.timeIntervalSince(last)
        if let back = steppedBack, now.timeIntervalSince(back.at) > Self.settleAfter {
            steppedBack = nil  // long enough: a later step forward is a gap
        }
        if d > Self.bigStep, let back = steppedBack {
            // Where the times before the step back would be by now: the clock came back.
            // (Less the fixes the step back waited for, which added no time.)
            let expected = back.from.addingTimeInterval(now.timeIntervalSince(back.at))
            let past = fix.time.timeIntervalSince(expected)
            if past >= -slack, past <= slack + Double(stepConfirmations) * interval {
                steppedBack = nil
                d = max(0, past)
            }
        }
        if d > Self.bigStep {
            pending = Held(before: last, virtualBefore: now, fixes: [fix])
            earlier = []
            return []
        } else if d >= 0 {
            earlier = []
            lastRaw = fix.time
            now = now.addingTimeInterval(d)
            if d > 0 { steps = steps.suffix(8) + [d] }
        } else {
            if let previous = earlier.last, fix.time <= previous { earlier = [] }
            earlier.append(fix.time)
            if earlier.count >= stepConfirmations {
                steppedBack = (last, now)
                lastRaw = fix.time
                earlier = []
            }
        }
        virtual = now
        return [(fix, now)]
    }
}

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
        for fix in fixes {
            let time = clock.time(of: fix)
            if !started {
                state.feed(.start, at: time, onStep)
                started = true
            }
            state.finishAudio(upTo: time, onStep)
            if state.core.isFinished { break }
            state.feed(.fix(fix), at: time, onStep)
            if state.core.isFinished { break }
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
/// the walk. A step forward of more than `bigStep` waits for the next fix: if it goes on from the
/// new time, the step was a real gap and counts; if it goes back to the old times, it was one wild
/// stamp and counts for nothing.
struct TraceClock {
    let stepConfirmations: Int
    static let bigStep = 60.0
    private var virtual: Date?
    private var lastRaw: Date?
    private var earlier: [Date] = []
    /// A big step forward not yet confirmed: the receiver's time before it, and the step.
    private var pending: (before: Date, step: Double)?

    init(stepConfirmations: Int) {
        self.stepConfirmations = stepConfirmations
    }

    mutating func time(of fix: Fix) -> Date {
        guard var now = virtual, let last = lastRaw else {
            virtual = fix.time
            lastRaw = fix.time
            return fix.time
        }
        var reference = last
        if let step = pending {
            pending = nil
            if fix.time >= last {
                now = now.addingTimeInterval(step.step)  // a real gap: its time counts now
            } else {
                reference = step.before  // one wild stamp: as if never read
            }
        }
        let d = fix.time.timeIntervalSince(reference)
        if d > Self.bigStep {
            pending = (reference, d)
            earlier = []
            lastRaw = fix.time
        } else if d >= 0 {
            earlier = []
            lastRaw = fix.time
            now = now.addingTimeInterval(d)
        } else {
            lastRaw = reference
            if let previous = earlier.last, fix.time <= previous { earlier = [] }
            earlier.append(fix.time)
            if earlier.count >= stepConfirmations {
                lastRaw = fix.time
                earlier = []
            }
        }
        virtual = now
        return now
    }
}

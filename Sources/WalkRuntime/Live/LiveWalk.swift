import FileAccess
import Foundation
import GPSD
import Playback
import Positioning
import TourModel
import Walk

/// How a live walk ended.
public enum LiveWalkOutcome: Sendable, Hashable {
    case completed(message: String?)
    case abandoned
    /// Every input ran dry before the tour ended (a finite position source, no keys): progress is saved.
    case inputEnded
}

/// A live walk's end: how it ended, and what of its bookkeeping never reached the disk.
public struct LiveWalkResult: Sendable, Hashable {
    public var outcome: LiveWalkOutcome
    /// Set when progress or analytics events could not be written even at the end (a disk that
    /// stayed full or read-only): what was lost, for the walker.
    public var unsaved: String?

    public init(outcome: LiveWalkOutcome, unsaved: String? = nil) {
        self.outcome = outcome
        self.unsaved = unsaved
    }
}

/// The live runtime: drives the walk core from a position source, narration and key commands, in
/// wall-clock time, and carries out its effects (docs/architecture.md, "Modules"; docs/walk.md).
///
/// One loop consumes every input in arrival order, so the core sees a single, consistent history;
/// GPS and audio run in their own tasks and never wait on each other. Nothing here polls: the loop
/// sleeps until a fix, an audio event or a key arrives.
public final class LiveWalk: Sendable {
    public struct Dependencies: Sendable {
        public var narration: any Narration
        public var progress: ProgressStore
        /// Where the walk's analytics events are recorded (the outbox, from the command line).
        public var journal: any WalkEventRecorder
        /// The tour's walk lock. The writer makes sure it is held before each save: a state
        /// folder that was not writable when the walk began may not have let the walk take it.
        public var lock: LockFile?
        /// Stamps inputs (injected so tests can pin time).
        public var now: @Sendable () -> Date
        /// Called after every change with what the screen should show.
        public var display: @Sendable (LiveWalkStatus) -> Void

        public init(
            narration: any Narration, progress: ProgressStore, journal: any WalkEventRecorder, lock: LockFile? = nil,
            now: @escaping @Sendable () -> Date = { Date() },
            display: @escaping @Sendable (LiveWalkStatus) -> Void
        ) {
            self.narration = narration
            self.progress = progress
            self.journal = journal
            self.lock = lock
            self.now = now
            self.display = display
        }
    }

    private enum Input: Sendable {
        case position(GPSDEvent)
        case narration(NarrationEvent)
        case command(WalkAction)
        case sourceEnded
    }

    private let startCore: WalkCore
    private let dependencies: Dependencies

    public init(core: WalkCore, dependencies: Dependencies) {
        self.startCore = core
        self.dependencies = dependencies
    }

    /// Runs the walk to its end. `positions` and `commands` may be endless; the walk ends on
    /// completion, on `quit`, or when both positions and commands have ended with nothing playing.
    /// A disk that will not take progress or events does not end it (`WalkStateWriter`).
    public func run<Positions: AsyncSequence & Sendable>(positions: Positions, commands: AsyncStream<WalkAction>) async
        -> LiveWalkResult
    where Positions.Element == GPSDEvent {
        let deps = dependencies
        let (inputs, sink) = AsyncStream.makeStream(of: Input.self)
        let feeders = [
            Task {
                do {
                    for try await update in positions { sink.yield(.position(update)) }
                } catch {
                    sink.yield(.position(.state(.noGPSD)))
                }
                sink.yield(.sourceEnded)
            },
            Task {
                for await command in commands { sink.yield(.command(command)) }
                sink.yield(.sourceEnded)
            },
            Task {
                for await event in deps.narration.events { sink.yield(.narration(event)) }
            },
        ]
        defer { feeders.forEach { $0.cancel() } }

        var core = startCore
        var status = LiveWalkStatus(tour: core.tour, progress: core.progress)
        var subtitles: SubtitleTrack?
        var endedSources = 0
        var outcome: LiveWalkOutcome?
        var writer = WalkStateWriter(store: deps.progress, journal: deps.journal, lock: deps.lock)

        /// Says once that saving stopped working, and once that it works again.
        func note(_ report: WalkStateWriter.Report?) {
            switch report {
            case .failing(let why)?: status.notice = "\(why); the walk goes on and saves when it can"
            case .recovered?: status.notice = "saving works again: progress and analytics are on disk"
            case nil: break
            }
        }

        func apply(_ effects: [WalkEffect]) async {
            for effect in effects {
                switch effect {
                case .play(let point):
                    // The LAME/Info tag gives the length without decoding; the screen shows elapsed/total.
                    let duration = point.audio.flatMap { try? AudioProbe.inspect($0).duration }
                    status.nowPlaying = .init(point: point, elapsed: 0, duration: duration)
                    status.subtitle = nil
                    subtitles = point.subtitles.flatMap { try? SubtitleTrack(contentsOf: $0) }
                    await deps.narration.play(point)
                case .stop:
                    status.nowPlaying = nil
                    status.subtitle = nil
                    await deps.narration.stop()
                case .pause:
                    await deps.narration.pause()
                case .resume:
                    await deps.narration.resume()
                case .announce(let point, let reason):
                    status.notice = "\(point.order). \(point.title): \(reason)"
                    if !point.text.isEmpty { status.notice! += " — \(point.text)" }
                case .triggered(let trigger):
                    status.triggers.append(trigger)
                case .queued, .missed:
                    break
                case .route(let event):
                    if case .left(_, let offset) = event { status.offRoute = offset } else { status.offRoute = nil }
                case .fixRejected(_, let reason):
                    status.rejectedFixes += 1
                    status.lastRejection = reason
                case .track(let event):
                    note(writer.record(event, at: deps.now()))
                case .saveProgress(let progress):
                    note(writer.save(progress, at: deps.now()))
                case .completed(let message):
                    outcome = .completed(message: message)
                case .abandoned:
                    outcome = .abandoned
                }
            }
            status.progress = core.progress
            status.nextPointReached =
                core.progress.nextIndex >= core.tour.points.count || core.hasReached(core.progress.nextIndex)
            if core.progress.playing == nil { status.nowPlaying = nil; status.subtitle = nil }
        }

        await apply(core.handle(.start, at: deps.now()))
        deps.display(status)

        for await input in inputs {
            let now = deps.now()
            note(writer.retryIfDue(at: now))
            switch input {
            case .position(.fix(let fix)):
                status.lastFix = fix
                status.gps = .connected
                await apply(core.handle(.fix(fix), at: now))
            case .position(.state(let state)):
                status.gps = state
            case .narration(let event):
                switch event {
                case .started(let id, let duration):
                    if var playing = status.nowPlaying, playing.point.id == id {
                        playing.elapsed = 0
                        playing.duration = duration ?? playing.duration
                        status.nowPlaying = playing
                    }
                case .position(let id, let seconds):
                    if status.nowPlaying?.point.id == id {
                        status.nowPlaying?.elapsed = seconds
                        status.subtitle = subtitles?.cue(at: seconds)?.text
                    }
                case .finished(let id):
                    await apply(core.handle(.audioFinished(pointID: id), at: now))
                case .failed(let id, let message):
                    await apply(core.handle(.audioFailed(pointID: id, reason: message), at: now))
                case .warning(_, let message):
                    status.notice = message
                }
            case .command(let command):
                await apply(core.handle(.command(command), at: now))
            case .sourceEnded:
                endedSources += 1
            }
            deps.display(status)
            if outcome != nil { break }
            if endedSources >= 2, core.progress.playing == nil, core.progress.queue.isEmpty {
                outcome = .inputEnded
                break
            }
        }
        await deps.narration.shutdown()
        if writer.isBehind { _ = writer.flush(at: deps.now()) }
        return LiveWalkResult(outcome: outcome ?? .inputEnded, unsaved: writer.unsaved)
    }
}

/// A snapshot of the walk for the screen: everything a walker glances at.
public struct LiveWalkStatus: Sendable {
    public struct NowPlaying: Sendable {
        public var point: PlayablePoint
        public var elapsed: Double
        public var duration: Double?

        public init(point: PlayablePoint, elapsed: Double, duration: Double?) {
            self.point = point
            self.elapsed = elapsed
            self.duration = duration
        }
    }

    public let tour: PlayableTour
    public var progress: WalkProgress
    /// Nil until the position source has said anything.
    public var gps: GPSDState?
    public var lastFix: Fix?
    public var nowPlaying: NowPlaying?
    public var subtitle: String?
    public var notice: String?
    /// The points triggered since this walk started, in order: one fix may trigger several (a
    /// small point inside a larger one's radius), and a log says each.
    public var triggers: [PointTrigger] = []
    public var rejectedFixes = 0
    public var lastRejection: FixFilter.Reason?
    /// Whether the walker's progress along the route has reached the next point (rule 10): a
    /// walker inside its radius before that (a loop's finale at the start) hears it later.
    public var nextPointReached = true
    /// How far off the route the walker went, while off it (metres).
    public var offRoute: Double?

    public init(tour: PlayableTour, progress: WalkProgress) {
        self.tour = tour
        self.progress = progress
    }

    /// The point GPS is waiting for, if any.
    public var nextPoint: PlayablePoint? {
        progress.nextIndex < tour.points.count ? tour.points[progress.nextIndex] : nil
    }

    /// Points triggered and waiting behind the narration.
    public var queuedPoints: [PlayablePoint] {
        progress.queue.compactMap { id in tour.points.first { $0.id == id } }
    }

    public var heardCount: Int { progress.points.count { $0.status == .played } }
}

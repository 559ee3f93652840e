import Analytics
import ArgumentParser
import FileAccess
import Foundation
import GPSD
import Playback
import Positioning
import TourModel
import TourStore
import Walk
import WalkRuntime
import WalkscapeKit

/// `walkscape walk`: the walk itself, on the street.
struct WalkTourCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "walk",
        abstract: "Walk a tour: GPS from gpsd, narration through ALSA, progress kept across restarts.",
        discussion: """
            Points play in order as you reach them; narration is never cut off by GPS. Progress is \
            saved after every change, so an interrupted walk resumes where it was (--restart begins again).

            Keys: space pause/resume · n skip · p previous · r replay · q quit (asks first) · ? help

            Examples:
              walkscape walk tours/demo
              walkscape walk tours/demo -l it --audio-device hw:1
              walkscape walk tours/demo --no-audio --no-input --gpsd-host 192.168.1.20
              walkscape walk bologna-portici     (installed with walkscape download; no network needed)
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp(
            "A tour folder (with tour.json), or an installed tour (id, slug or title).", valueName: "tour"),
        completion: .custom { words, _, prefix in TourCompletion.tours(words: words, prefix: prefix, folders: true) })
    var tour: String

    @Option(
        name: [.short, .long],
        help: ArgumentHelp("Narration language (default: the tour's default).", valueName: "code"),
        completion: .custom { words, _, prefix in TourCompletion.languages(words: words, prefix: prefix) })
    var language: String?

    @OptionGroup(title: "Sound (a WAV is written in real time, as heard; subtitles show in any case)")
    var audio: AudioOutputOptions

    @Flag(name: .long, help: "Do not read keys (for headless use); the walk runs by GPS alone.")
    var noInput = false

    @Flag(name: .long, help: "Forget saved progress and begin at the first point.")
    var restart = false

    @OptionGroup(title: "Triggering") var triggering: TriggeringOptions

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("Seconds without data before gpsd counts as gone.", valueName: "s"))
    var gpsdTimeout: Double = 5

    func validate() throws {
        try Limits.gpsdTimeout.check(gpsdTimeout, flag: "--gpsd-timeout")
    }

    /// With the WAV on standard output, everything a person reads goes to standard error.
    private var textToStandardError: Bool { audio.writesToStandardOutput }

    func run() async throws {
        let settings = try global.settings()
        let resolved = try TourArgument.resolve(tour, settings: settings)
        var playable = try resolved.playable(language: language, settings: settings)
        let loudness = try audio.level.target(settings)
        let policy = try triggering.policy(settings)
        let gpsdPort = try settings.gpsdPort()
        let analyticsSettings = try settings.analytics()
        let store = ProgressStore(folder: settings.paths.progress)
        let interactive = TerminalSession.isInteractive && !noInput

        // One walk of a tour at a time: the second would save its progress over the first's.
        let lock = store.lock(forTour: playable.id)
        if case .busy(let holder) = store.acquire(lock) {
            throw AppError.unavailable(
                "another walk of \(playable.title) is running\(holder.map { " (pid \($0.pid))" } ?? ""); end it first, or wait for it to end"
            )
        }
        defer { lock.release() }
        // The sound device first: a walk that cannot begin must not have forgotten the last one.
        let narration = try makeNarration(settings: settings, loudness: loudness)
        if loudness != .off, !(narration is SilentNarration) {
            NarrationLoudness.fill(&playable, from: resolved, settings: settings, notice: say)
        }
        for note in resolved.unplayableNotes(language: language, settings: settings) { say(note) }

        // Resume unless asked not to, and say where.
        var core = WalkCore(tour: playable, policy: policy)
        if restart {
            store.remove(tourID: playable.id)
        } else if let saved = try loadProgress(store, tour: playable) {
            // A walk ended by a crash, a signal or `q` resumes; only a completed one starts over.
            if saved.outcome == .completed {
                say("Your last walk of \(playable.title) was completed; starting again at point 1.")
            } else {
                do {
                    core = try WalkCore(tour: playable, policy: policy, resuming: saved)
                    if let changes = core.pointChanges { say(Self.changesLine(changes, tour: playable)) }
                    if saved.pointsVisited > 0 {
                        say(Self.resumeLine(core.progress, tour: playable, staysPaused: interactive))
                    }
                } catch {
                    throw AppError.data("\(error.message) (use --restart)")
                }
            }
        }

        let (commands, commandSink) = AsyncStream.makeStream(of: WalkAction.self)
        let terminal = interactive ? TerminalSession() : nil
        // Any ending signal quits the walk the normal way (abandoned, saved, terminal restored);
        // a second one, if the first is slow to take effect, gives the terminal back and exits.
        let signals = SignalTrap(
            handler: { _ in commandSink.yield(.quit) },
            onRepeat: { _ in
                terminal?.restore()
                try? FileHandle.standardError.write(
                    contentsOf: Data("walkscape: stopped at once; progress is as it was last saved\n".utf8))
            })
        defer { signals.cancel() }

        let plain = textToStandardError ? PlainWalkLog(write: { Console.err($0) }) : PlainWalkLog()
        let ui = LiveWalkUI(terminal: terminal, color: Terminal.useColor, plain: plain)
        var keyTask: Task<Void, Never>?
        // A walk paused when it stopped stays paused for a walker with keys (space goes on);
        // without keys nothing could ever resume it, so it goes on by itself.
        if !interactive && core.progress.isPaused { commandSink.yield(.resume) }
        if interactive {
            let keys = KeyReader()
            keyTask = Task { await ui.handle(keys: keys.keys, commands: commandSink) }
        }
        // Without keys the stream stays open all the same: SIGINT/SIGTERM arrive through it as `quit`.
        terminal?.enter()
        // Ctrl-Z gives the terminal back before stopping; `fg` takes it again.
        let suspension = terminal.map { terminal in
            Suspension(
                onSuspend: { terminal.restore() },
                onResume: {
                    terminal.enter(); ui.redrawAll()
                })
        }
        defer { suspension?.cancel() }

        let positions = GPSDSource(
            configuration: .init(
                host: settings.gpsdHost, port: gpsdPort,
                silenceTimeout: gpsdTimeout))
        // The service's ids only for a tour that came from it; a tour folder's events stay here.
        let origin: EventOrigin =
            if case .installed(let installed) = resolved { .service(installed.service) } else { .local }
        let analytics = WalkAnalytics(settings: settings, analytics: analyticsSettings, origin: origin)
        let walk = LiveWalk(
            core: core,
            dependencies: .init(
                narration: narration, progress: store, journal: analytics, lock: lock,
                display: { status in ui.show(status) }))
        let result = await walk.run(positions: positions, commands: commands)
        keyTask?.cancel()
        suspension?.cancel()
        terminal?.restore()

        let saved = result.unsaved == nil ? "progress saved" : "progress NOT saved"
        switch result.outcome {
        case .completed(let message):
            say(message ?? "Tour complete: \(playable.title).")
        case .abandoned where result.unsaved == nil:
            say(
                "Walk ended early; progress saved. Run `walkscape walk \(DownloadReporter.shellWord(tour))` to resume, or add --restart to begin again."
            )
        case .abandoned:
            say(
                "Walk ended early; progress NOT saved, so a walk started again resumes from the last progress saved, if any."
            )
        case .inputEnded:
            say("The position source ended before the tour did; \(saved).")
        }
        await analytics.finish()
        if let signal = signals.caught {
            if let unsaved = result.unsaved {
                try? FileHandle.standardError.write(contentsOf: Data("walkscape: \(unsaved)\n".utf8))
            }
            throw ExitCode(128 + signal)
        }
        if let unsaved = result.unsaved { throw AppError.failure(unsaved) }
    }

    private func loadProgress(_ store: ProgressStore, tour: PlayableTour) throws(AppError) -> WalkProgress? {
        do { return try store.load(tourID: tour.id) } catch {
            switch error.remedy {
            case .startAgain: throw AppError.data(error.message + "; start again with --restart")
            case .moveAsideOrStartAgain:
                throw AppError.data(error.message + "; move it away or start again with --restart")
            case nil: throw AppError.data(error.message)
            }
        }
    }

    private func makeNarration(settings: Settings, loudness: LoudnessTarget) throws(AppError) -> any Narration {
        guard let sink = try audio.makeSink(settings) else { return SilentNarration() }
        // A walk happens in real time whatever the output: a WAV file or ALSA's null/file device
        // would otherwise "hear" a narration in milliseconds and play the queue behind it at once.
        return QueueNarration(queue: AudioQueue(sink: PacedSink(wrapping: sink)), loudness: loudness)
    }

    /// What became of a saved walk whose tour's points changed since (an update, an edit).
    static func changesLine(_ changes: WalkProgress.PointChanges, tour: PlayableTour) -> String {
        func count(_ n: Int, _ what: String) -> String? { n == 0 ? nil : "\(n) point\(n == 1 ? "" : "s") \(what)" }
        func names(_ ids: [String]) -> String {
            ids.compactMap { id in tour.points.first { $0.id == id }.map { "\($0.order). \($0.title)" } }
                .joined(separator: ", ")
        }
        let counts = [
            count(changes.added.count, "added"), count(changes.removed.count, "removed"),
            count(changes.renamed.count, "renamed where they stand, still heard as before"),
        ].compactMap(\.self)
        var line =
            "The tour's points changed since this walk was saved"
            + (counts.isEmpty ? " (reordered)" : " (\(counts.joined(separator: ", ")))")
            + "; the walk goes on from where it was."
        if !changes.passedOver.isEmpty {
            line += " Behind you now, passed over: \(names(changes.passedOver))."
        }
        if !changes.ahead.isEmpty {
            line += " Ahead of you now, to be heard again: \(names(changes.ahead))."
        }
        // A point given a new id and moved (or saved before places were kept) is a new point to it.
        if !changes.removed.isEmpty, !changes.added.isEmpty {
            line +=
                " Points the tour now names anew may be ones you heard: their narration plays again (--restart starts the walk over)."
        }
        return line
    }

    static func resumeLine(_ progress: WalkProgress, tour: PlayableTour, staysPaused: Bool) -> String {
        let heard = progress.points.count { $0.status == .played }
        if let playing = progress.playing, let point = tour.points.first(where: { $0.id == playing.pointID }) {
            let when =
                progress.isPaused && staysPaused
                ? "from its start when you resume (paused: space goes on)" : "from its start"
            return
                "Resuming \(tour.title): \(heard) of \(tour.points.count) heard; \(point.order). \(point.title) plays again \(when)."
        }
        // The point that was playing left the tour: the queue behind it plays first.
        if let id = progress.queue.first, let point = tour.points.first(where: { $0.id == id }) {
            return
                "Resuming \(tour.title): \(heard) of \(tour.points.count) heard; \(point.order). \(point.title) plays first."
        }
        if tour.points.indices.contains(progress.nextIndex) {
            let next = tour.points[progress.nextIndex]
            return
                "Resuming \(tour.title): \(heard) of \(tour.points.count) heard; next is \(next.order). \(next.title)."
        }
        return "Resuming \(tour.title): \(heard) of \(tour.points.count) heard."
    }

    /// Never traps on a failed write: after a hangup the terminal answers EIO, and the walk's
    /// last words must not turn a saved walk into a crash.
    private func say(_ line: String) {
        Console.say(line, toStandardError: textToStandardError)
    }
}

import ArgumentParser
import Foundation
import Playback
import Positioning
import TourModel
import Walk

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
        """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The tour folder (with tour.json).", valueName: "tour"))
    var tour: String

    @Option(name: [.short, .long], help: ArgumentHelp("Narration language (default: the tour's default).", valueName: "code"))
    var language: String?

    @Option(name: .long, help: ArgumentHelp("ALSA device for the narration (env: WALKSCAPE_AUDIO_DEVICE; default 'default').", valueName: "name"))
    var audioDevice: String?

    @Option(name: .long, help: ArgumentHelp("Write the narration to this WAV file instead of a sound device.", valueName: "file"))
    var output: String?

    @Flag(name: .long, help: "No sound: each narration takes its real duration in silence, subtitles still shown.")
    var noAudio = false

    @Flag(name: .long, help: "Do not read keys (for headless use); the walk runs by GPS alone.")
    var noInput = false

    @Flag(name: .long, help: "Forget saved progress and begin at the first point.")
    var restart = false

    @OptionGroup(title: "Triggering") var triggering: TriggeringOptions

    @Option(name: .long, help: ArgumentHelp("Seconds without data before gpsd counts as gone.", valueName: "s"))
    var gpsdTimeout: Double = 5

    func validate() throws {
        if [audioDevice != nil, output != nil, noAudio].filter({ $0 }).count > 1 {
            throw ValidationError("choose one of --audio-device, --output and --no-audio")
        }
        try Limits.gpsdTimeout.check(gpsdTimeout, flag: "--gpsd-timeout")
    }

    func run() async throws {
        let settings = try global.settings()
        let playable = try TourArgument.playable(TourArgument.folder(tour), language: language, settings: settings)
        let policy = try triggering.policy(settings)
        let gpsdPort = try settings.gpsdPort()
        let store = ProgressStore(folder: settings.paths.progress)
        let journal = EventJournal(url: settings.paths.state.appendingPathComponent("outbox.jsonl"))
        let interactive = TerminalSession.isInteractive && !noInput

        // Resume unless asked not to, and say where.
        var core = WalkCore(tour: playable, policy: policy)
        if restart {
            store.remove(tourID: playable.id)
        } else if let saved = try loadProgress(store, tour: playable) {
            if saved.outcome == nil {
                do {
                    core = try WalkCore(tour: playable, policy: policy, resuming: saved)
                    if saved.pointsVisited > 0 { say(Self.resumeLine(core.progress, tour: playable)) }
                } catch {
                    throw CLIError.data("\(error.message) (use --restart)")
                }
            } else {
                say("Your last walk of \(playable.title) \(saved.outcome == .completed ? "was completed" : "ended early"); starting again at point 1.")
            }
        }

        let narration = try makeNarration(settings: settings)
        let (commands, commandSink) = AsyncStream.makeStream(of: WalkCommand.self)
        let signals = SignalTrap(signals: [SIGINT, SIGTERM]) { _ in commandSink.yield(.quit) }
        defer { signals.cancel() }

        let terminal = interactive ? TerminalSession() : nil
        let ui = LiveWalkUI(terminal: terminal, color: Terminal.useColor)
        var keyTask: Task<Void, Never>?
        if interactive {
            let keys = KeyReader()
            keyTask = Task { await ui.handle(keys: keys.keys, commands: commandSink) }
        }
        // Without keys the stream stays open all the same: SIGINT/SIGTERM arrive through it as `quit`.
        terminal?.enter()

        let positions = GPSDSource(configuration: .init(host: settings.gpsdHost, port: gpsdPort,
                                                        silenceTimeout: gpsdTimeout))
        let walk = LiveWalk(core: core, dependencies: .init(
            narration: narration, progress: store, journal: journal,
            display: { status in ui.show(status) }))
        let outcome: LiveWalkOutcome
        do {
            outcome = try await walk.run(positions: positions, commands: commands)
        } catch {
            terminal?.restore()
            throw CLIError.failure(error.message)
        }
        keyTask?.cancel()
        terminal?.restore()

        switch outcome {
        case .completed(let message):
            say(message ?? "Tour complete: \(playable.title).")
        case .abandoned:
            say("Walk ended early; progress saved. Run `walkscape walk \(tour)` to resume, or add --restart to begin again.")
            if signals.caught != nil { throw ExitCode(130) }
        case .inputEnded:
            say("The position source ended before the tour did; progress saved.")
        }
    }

    private func loadProgress(_ store: ProgressStore, tour: PlayableTour) throws(CLIError) -> WalkProgress? {
        do { return try store.load(tourID: tour.id) } catch { throw CLIError.data(error.message) }
    }

    private func makeNarration(settings: Settings) throws(CLIError) -> any Narration {
        if noAudio { return SilentNarration() }
        let sink: any PCMSink
        if let output {
            sink = WAVFileSink(url: URL(fileURLWithPath: output))
        } else {
            do { sink = try ALSASink(device: audioDevice ?? settings.audioDevice) }
            catch { throw CLIError.unavailable(error.message) }
        }
        return QueueNarration(queue: AudioQueue(sink: sink))
    }

    static func resumeLine(_ progress: WalkProgress, tour: PlayableTour) -> String {
        let heard = progress.points.count { $0.status == .played }
        if let playing = progress.playing, let point = tour.points.first(where: { $0.id == playing.pointID }) {
            return "Resuming \(tour.title): \(heard) of \(tour.points.count) heard; \(point.order). \(point.title) plays again from its start."
        }
        if tour.points.indices.contains(progress.nextIndex) {
            let next = tour.points[progress.nextIndex]
            return "Resuming \(tour.title): \(heard) of \(tour.points.count) heard; next is \(next.order). \(next.title)."
        }
        return "Resuming \(tour.title): \(heard) of \(tour.points.count) heard."
    }

    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

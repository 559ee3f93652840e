import ArgumentParser
import FileAccess
import Foundation
import Playback
import Positioning
import TourModel
import Walk
import WalkRuntime
import WalkscapeKit

/// `walkscape preview`: what a walker would hear on a recorded walk, before the tour is published.
struct PreviewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Replay a recorded walk through a tour and show what the walker hears, and when.",
        discussion: """
            The walk runs in the trace's own time through the same engine as `walk`. Narration lasts \
            as long as its decoded audio. By default the preview plays in real time with sound; \
            --speed fast-forwards the walking (never the narration); --fast and --json only compute.

            Examples:
              walkscape preview tours/demo --trace tours/demo/traces/walk.nmea --fast
              walkscape preview tours/demo --trace tours/demo/traces/walk.gpx --speed 10 -l it
              walkscape preview tours/demo --fast --no-audio --json --missed skip
              walkscape preview bologna-portici --trace walk.nmea --fast     (an installed tour)
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp(
            "A tour folder (with tour.json), or an installed tour (id, slug or title).", valueName: "tour"),
        completion: .custom { words, _, prefix in TourCompletion.tours(words: words, prefix: prefix, folders: true) })
    var tour: String

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The recorded walk, NMEA 0183 or GPX (default: the tour's first trace).",
            valueName: "file"))
    var trace: String?

    @Option(
        name: [.short, .long],
        help: ArgumentHelp("Narration language (default: the tour's default).", valueName: "code"),
        completion: .custom { words, _, prefix in TourCompletion.languages(words: words, prefix: prefix) })
    var language: String?

    @Flag(name: .long, help: "Compute the timeline as fast as possible, without playing anything.")
    var fast = false

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Play back N times faster than the walk (narration stays at 1x).",
            valueName: "N"))
    var speed: Double?

    @Flag(name: .long, help: "Do not open a sound device; narration is timed and its subtitles shown.")
    var noAudio = false

    @OptionGroup var level: LoudnessOption

    @Flag(name: .long, help: "Print the report as JSON (implies --fast unless --speed is given).")
    var json = false

    @OptionGroup(title: "Triggering") var triggering: TriggeringOptions

    @Option(
        name: .long,
        help: ArgumentHelp(
            "ALSA device for the narration (env: WALKSCAPE_AUDIO_DEVICE; default 'default').",
            valueName: "name"))
    var audioDevice: String?

    func validate() throws {
        if fast && speed != nil { throw ValidationError("--fast and --speed exclude each other") }
        if noAudio && audioDevice != nil { throw ValidationError("choose one of --audio-device and --no-audio") }
        if let speed { try Limits.speed.check(speed, flag: "--speed") }
    }

    func run() async throws {
        let settings = try global.settings()
        let resolved = try TourArgument.resolve(tour, settings: settings)
        var playable = try resolved.playable(language: language, settings: settings)
        let loudness = try level.target(settings)
        // What each narration measures and the gain it gets: reported, and applied when played.
        NarrationLoudness.fill(&playable, from: resolved, settings: settings) { Console.err($0) }
        let traceURL = try Self.traceURL(trace, in: resolved.folder())
        let traceFile: TraceFile
        do { traceFile = try TraceFile(url: traceURL) } catch { throw AppError.data(error.message) }

        let policy = try triggering.policy(settings)
        let simulation = WalkSimulation(
            tour: playable, policy: policy,
            narrations: WalkSimulation.probeNarrations(of: playable))
        var report = simulation.run(fixes: traceFile.fixes())
        report.addLoudness(of: playable, target: loudness)
        if report.summary.fixes == 0 {
            let why = traceFile.statistics.map { " (\($0.unusedSummary))" } ?? ""
            throw AppError.data("\(traceURL.path): no usable position in this trace\(why)")
        }
        // A walk where every fix is ignored triggers nothing; say why instead of a silent timeline.
        if report.summary.acceptedFixes == 0 {
            let reasons = report.summary.rejectedFixes.sorted {
                $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key
            }
            .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            throw AppError.data(
                "\(traceURL.path): no fix passes the quality filter (\(report.summary.fixes) fixes: \(reasons))")
        }

        let computeOnly = fast || (json && speed == nil)
        if !computeOnly {
            // Open the device before anything plays, so a missing sound card is one clear line.
            var player: AudioQueue?
            if !noAudio {
                let device = audioDevice ?? settings.audioDevice
                do { player = AudioQueue(sink: try ALSASink(device: device)) } catch {
                    throw AppError.unavailable(AudioOutputOptions.advice(error))
                }
            }
            let performance = PreviewPerformance(report: report, tour: playable, speed: speed ?? 1, loudness: loudness)
            // With --json, stdout is for the JSON alone; the performance goes to stderr.
            let toStderr = json
            // Unbuffered, so each line shows when it happens even through a pipe (`make demo | tee`).
            let write: @Sendable (String) -> Void = { line in Console.say(line, toStandardError: toStderr) }
            let pace = speed.map { "at \(String(format: "%g", $0))x (narration at 1x)" } ?? "in real time"
            let sound = player == nil ? "without sound" : "with sound on '\(audioDevice ?? settings.audioDevice)'"
            write("Replaying \(traceURL.lastPathComponent) \(pace), \(sound). Ctrl-C stops.\n")
            // Ctrl-C (or any ending signal) stops the timeline where it is: no report follows.
            let queue = player
            let performing = Task { try await performance.perform(player: queue, write: write) }
            let signals = SignalTrap(handler: { _ in performing.cancel() })
            defer { signals.cancel() }
            do {
                try await performing.value
            } catch  where signals.caught != nil {
                // Cancelled by the signal: handled below.
            }
            if let signal = signals.caught {
                await player?.stop()
                await player?.shutdown()
                throw ExitCode(128 + signal)
            }
            await player?.shutdown()
        }
        if json {
            try JSONOutput.write(report)
        } else if computeOnly {
            Console.out(report.rendered(), terminator: "")
        } else {
            Console.out("")
            Console.out(report.renderedPoints(), terminator: "")
            Console.out("\n" + report.summaryLine)
        }
    }
}

extension PreviewCommand {
    /// `--trace` as given (relative to the working folder, else to the tour folder), or the
    /// tour's first trace.
    static func traceURL(_ given: String?, in folder: TourFolder) throws(AppError) -> URL {
        guard let given else {
            guard let first = folder.traces.first else {
                throw AppError.usage("the tour lists no traces: name one with --trace FILE")
            }
            return first
        }
        let direct = URL(fileURLWithPath: given)
        if FileManager.default.fileExists(atPath: direct.path) { return direct }
        let inFolder = folder.root.appendingPathComponent(given)
        if !given.hasPrefix("/"), FileManager.default.fileExists(atPath: inFolder.path) { return inFolder }
        if let target = FileAccessError.brokenLink(direct.path) {
            throw AppError.notFound("\(given): a symbolic link to \(target), which does not exist")
        }
        throw AppError.notFound("\(given): no such trace file")
    }
}

extension WalkPolicy.MissedPoints: ExpressibleByArgument {}

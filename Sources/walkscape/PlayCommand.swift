import ArgumentParser
import FileAccess
import Foundation
import Playback
import TourModel
import WalkscapeKit

/// `walkscape play`: plays narration files back to back, as a walk would, with their subtitles.
/// A curator's quick check of narration files, and the playback benchmark's subject.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play narration files back to back at one loudness, printing subtitle cues as they are heard.",
        discussion: """
            Files play in order without gaps. A file that cannot be played is reported and the next \
            one plays; the exit status is then 65. --subtitles may be given once per file, in the \
            files' order. --output writes what would be heard to a WAV file (as fast as it decodes): \
            an existing file is replaced only once the whole WAV is written (and not at all if nothing \
            plays), a FIFO or device is written through, and - is standard output (the cues then go to \
            standard error). --no-audio plays in real time to no device, so the cues still come in time. \
            Each file is brought to one loudness (-16 LUFS unless --loudness says otherwise; measured \
            once and cached), as a walk does; --loudness off plays the files as recorded.

            Examples:
              walkscape play media/en/01.mp3 --subtitles media/en/01.srt
              walkscape play 01.mp3 02.mp3 --audio-device hw:1
              walkscape play 01.mp3 --output 01.wav
              walkscape play 01.mp3 02.mp3 --output - | sox -t wav - -n stat
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp(
            "Audio files to play, in order (MP3, WAV, AAC/M4A, Ogg Vorbis, Opus, FLAC, WebM, AIFF).", valueName: "file")
    )
    var files: [String] = []

    @OptionGroup(title: "Sound") var audio: AudioOutputOptions

    @Option(
        name: .long,
        help: ArgumentHelp(
            "SRT subtitles for the file in the same position (repeatable).",
            valueName: "file.srt"))
    var subtitles: [String] = []

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Volume from 0 to 1.", valueName: "level"))
    var volume: Double = 1

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one audio file to play") }
        if files.contains("") { throw ValidationError("an empty name is no audio file") }
        if subtitles.count > files.count {
            throw ValidationError(
                "\(subtitles.count) --subtitles for \(files.count) file\(files.count == 1 ? "" : "s"): give at most one per file"
            )
        }
        try Limits.volume.check(volume, flag: "--volume")
    }

    func run() async throws {
        let settings = try global.settings()
        let tracks: [SubtitleTrack?]
        do {
            tracks = try files.indices.map { i throws(PlaybackError) in
                i < subtitles.count ? try SubtitleTrack(contentsOf: URL(fileURLWithPath: subtitles[i])) : nil
            }
        } catch {
            throw AppError.data(error.message)
        }
        let sink = try audio.makeSink(settings) ?? PacedSink(wrapping: NullSink())
        // Interrupted while writing a WAV: the file it would replace stays, and the half-written
        // temporary one goes. (Without --output the default action, ending at once, is right.)
        let signals = (sink as? WAVFileSink).map { wav in
            SignalTrap(signals: [SIGINT, SIGTERM]) { number in
                wav.output.removeTemporaryFile()
                Foundation.exit(128 + number)
            }
        }
        defer { signals?.cancel() }
        let loudness = try audio.level.target(settings)
        let urls = files.map { URL(fileURLWithPath: $0) }
        // Each file brought to the one level, as a walk does (measured once, then cached).
        let measured = loudness == .off ? [:] : NarrationLoudness.measure(urls, settings: settings) { Console.err($0) }
        let queue = AudioQueue(sink: sink, positionInterval: tracks.contains { $0 != nil } ? .milliseconds(50) : nil)
        await queue.setVolume(volume)
        for (i, url) in urls.enumerated() {
            await queue.enqueue(url, id: String(i), loudness: measured[url], target: loudness)
        }

        // With the WAV on standard output, what a person reads goes to standard error.
        var printer = CuePrinter(
            files: files, tracks: tracks,
            toStandardError: audio.writesToStandardOutput)
        var failures = 0
        var ended = 0
        // What was said already: the sink's closing error repeats the write failure the queue reported.
        var said: Set<String> = []
        for await event in queue.events {
            switch event {
            case .started(let id):
                printer.started(Int(id)!)
            case .position(let id, let seconds):
                printer.heard(Int(id)!, upTo: seconds)
            case .finished(let id):
                printer.heard(Int(id)!, upTo: .infinity)
                ended += 1
            case .stopped:
                ended += 1
            case .warning(_, let message):
                Self.stderr("walkscape: warning: \(message)")
            case .failed(_, let message):
                Self.stderr("walkscape: \(message)")
                said.insert(message)
                failures += 1
                ended += 1
            }
            if ended == files.count { break }
        }
        await queue.shutdown()
        // The queue closed the sink; closing again reports how the WAV was finished.
        do throws(PlaybackError) { try sink.close() } catch {
            guard !said.contains(error.message) else { throw ExitCode(1) }
            throw AppError.failure(error.message)
        }
        if failures > 0 {
            let message = "\(failures) of \(files.count) file\(files.count == 1 ? "" : "s") could not be played"
            // Every failure a file that is not there: not found, as for a missing tour or trace.
            let missing = files.count { !FileManager.default.fileExists(atPath: $0) }
            throw missing == failures ? AppError.notFound(message) : AppError.data(message)
        }
    }

    static func stderr(_ line: String) {
        Console.err(line)
    }
}

/// Prints each file's name when it starts and each cue once, in order, when playback reaches it.
struct CuePrinter {
    let files: [String]
    /// Each file's cues in start order (SRT files are not always in order).
    let cues: [[SubtitleTrack.Cue]]
    let toStandardError: Bool
    private var next: [Int]

    init(files: [String], tracks: [SubtitleTrack?], toStandardError: Bool = false) {
        self.files = files
        self.toStandardError = toStandardError
        self.cues = tracks.map { $0?.cues.sorted { $0.start < $1.start } ?? [] }
        self.next = Array(repeating: 0, count: files.count)
    }

    func started(_ index: Int) {
        say("▶ \(files[index])")
    }

    /// Prints the cues of file `index` that start at or before `seconds` and were not printed yet.
    mutating func heard(_ index: Int, upTo seconds: Double) {
        let cues = self.cues[index]
        while next[index] < cues.count, cues[next[index]].start <= seconds {
            let cue = cues[next[index]]
            say("[\(Self.clock(cue.start))] \(cue.text.replacingOccurrences(of: "\n", with: " / "))")
            next[index] += 1
        }
    }

    /// Written straight to the file descriptor: `print` would sit in stdio's buffer when stdout is
    /// a pipe, and a cue is only useful when it is heard.
    func say(_ line: String) {
        Console.say(line, toStandardError: toStandardError)
    }

    static func clock(_ seconds: Double) -> String {
        let millis = Int((seconds * 1000).rounded())
        return String(format: "%d:%02d.%03d", millis / 60_000, millis / 1000 % 60, millis % 1000)
    }
}

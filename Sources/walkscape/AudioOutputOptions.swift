import ArgumentParser
import FileAccess
import Foundation
import Playback
import WalkscapeKit

#if canImport(Glibc)
    import Glibc
#endif

/// Where `play` and `walk` send sound: an ALSA device, a WAV file, or nowhere (in real time, in
/// silence). One set of flags, checked and turned into a sink in one place.
struct AudioOutputOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("ALSA device (env: WALKSCAPE_AUDIO_DEVICE; default 'default').", valueName: "name"))
    var audioDevice: String?

    @Option(
        name: [.short, .long],
        help: ArgumentHelp(
            "Write the sound to this WAV file instead of a device (- for standard output).", valueName: "file"))
    var output: String?

    @Flag(name: .long, help: "Open no sound device: each file takes its real duration in silence.")
    var noAudio = false

    @OptionGroup var level: LoudnessOption

    func validate() throws {
        if [audioDevice != nil, output != nil, noAudio].filter({ $0 }).count > 1 {
            throw ValidationError("choose one of --audio-device, --output and --no-audio")
        }
        if let output, OutputFile(output).isStandardOutput, isatty(STDOUT_FILENO) == 1 {
            throw ValidationError("--output - would write a WAV to the terminal: redirect it to a file or a player")
        }
    }

    /// With the WAV on standard output, everything a person reads goes to standard error.
    var writesToStandardOutput: Bool { output.map { OutputFile($0).isStandardOutput } ?? false }

    /// The sink the flags name; nil for `--no-audio`. A WAV file that could not be written is
    /// refused now, before anything plays, and nothing is created until there is sound to write.
    func makeSink(_ settings: Settings) throws(AppError) -> (any PCMSink)? {
        if noAudio { return nil }
        if let output {
            let file = OutputFile(output)
            do throws(FileAccessError) { try file.check() } catch {
                throw AppError.failure(PlaybackError(output: error).message)
            }
            return WAVFileSink(output: file)
        }
        do { return try ALSASink(device: audioDevice ?? settings.audioDevice) } catch {
            throw AppError.unavailable(Self.advice(error))
        }
    }

    /// The library says what failed; the command line says which flags help.
    static func advice(_ error: PlaybackError) -> String {
        if case .noSoundCard = error {
            return error.message + "; choose one with --audio-device NAME or use --no-audio"
        }
        return error.message
    }
}

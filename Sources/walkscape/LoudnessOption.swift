import ArgumentParser
import TourModel
import WalkscapeKit

/// `--loudness`, shared by `walk`, `play` and `preview`: the level narration is brought to
/// (docs/loudness.md), or `off` for the samples as recorded.
struct LoudnessOption: ParsableArguments {
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Level every narration to this loudness in LUFS, never past -1 dBTP, or 'off' to play files as recorded (env: WALKSCAPE_LOUDNESS; default -16).",
            valueName: "LUFS|off"))
    var loudness: String?

    func validate() throws {
        if let loudness, LoudnessTarget(parsing: loudness) == nil {
            throw ValidationError(
                "--loudness '\(loudness)' is not off or a level in LUFS from \(Int(LoudnessTarget.range.lowerBound)) to \(Int(LoudnessTarget.range.upperBound))"
            )
        }
    }

    func target(_ settings: Settings) throws(AppError) -> LoudnessTarget {
        try settings.loudness(flag: loudness)
    }
}

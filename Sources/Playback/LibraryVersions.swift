import CALSA
import CMPG123

/// Versions of the C libraries Playback is linked against, for `doctor` and `--version`.
public enum PlaybackLibraries {
    /// alsa-lib's own version string, read at run time.
    public static var alsaVersion: String { String(cString: snd_asoundlib_version()) }
    /// libmpg123's API version (compile time; libmpg123 has no run-time version call in 1.31).
    public static var mpg123APIVersion: Int { Int(MPG123_API_VERSION) }

    /// Stops alsa-lib from printing its own diagnostics on stderr; we report errors ourselves.
    public static func silenceALSA() { ws_alsa_silence() }
}

import BuildInfo
import GPSD
import Playback
import TourStore

/// `walkscape --version`: the version, the commit it was built from, and the versions of the
/// libraries it runs with (read from the libraries where they say so, else the API compiled in).
package enum VersionReport {
    /// `walkscape 0.2.0 (commit 1a2b3c4d5e6f)`, without loading any library.
    package static var first: String { BuildInfo.line(program: "walkscape") }

    /// The first line and one per library (FFmpeg's are loaded to ask them).
    package static var lines: [String] {
        [
            first,
            "alsa-lib \(PlaybackLibraries.alsaVersion)",
            "libmpg123 API \(PlaybackLibraries.mpg123APIVersion)",
            "libavformat \(FFmpegLibraries.avformatVersion), libavcodec \(FFmpegLibraries.avcodecVersion), "
                + "libswresample \(FFmpegLibraries.swresampleVersion)",
            "libebur128 \(LoudnessMeter.libraryVersion)",
            "libgps API \(GPSDLibrary.apiVersion)",
            "SQLite \(TourStore.sqliteVersion())",
        ]
    }
}

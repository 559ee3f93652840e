import Foundation

/// Reads an audio file's format and exact length.
///
/// The curator's preview plays tours in virtual time from these lengths, so they must equal what
/// decoding produces, and be cheap: the LAME/Info tag gives the length from the first kilobytes;
/// only files without one (or whose tag the file size contradicts, i.e. truncated files) are scanned
/// frame header by frame header. Nothing is decoded.
public enum AudioProbe {
    public static func inspect(_ url: URL) throws(PlaybackError) -> AudioInfo {
        let decoder = try AudioDecoders.open(url)
        return AudioInfo(format: decoder.format, frames: try decoder.exactFrameCount())
    }

    /// The same for an MP3 held in memory.
    public static func inspect(data: Data, name: String = "<memory>") throws(PlaybackError) -> AudioInfo {
        let decoder = try AudioDecoders.open(data: data, name: name)
        return AudioInfo(format: decoder.format, frames: try decoder.exactFrameCount())
    }
}

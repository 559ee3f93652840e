import FileAccess
import Foundation
import TourModel

/// One audio stream decoded to signed 16-bit interleaved PCM at the stream's own rate, mono or
/// stereo. The queue, the probe and the preview see only this seam; which library decodes is the
/// business of `AudioDecoders.open`, which picks by the file's bytes, never by its name.
///
/// Not thread-safe: one decoder belongs to one thread.
public protocol AudioDecoder: AnyObject {
    /// The PCM the decoder produces, fixed for the stream.
    var format: PCMFormat { get }
    /// The file path (or the name a blob was given), for messages.
    var name: String { get }
    /// PCM frames handed out so far.
    var framesDecoded: Int { get }
    /// Set when the stream ended early or with damage the decoder skipped: what was decodable is
    /// played, and this line is reported.
    var damage: String? { get }
    /// The next piece of PCM, or nil at the end. The buffer belongs to the decoder and is valid until
    /// the next call; the caller may change the samples in place (volume, fades).
    func nextChunk() throws(PlaybackError) -> UnsafeMutableRawBufferPointer?
    /// The exact number of PCM frames the stream decodes to. Call before decoding starts.
    func exactFrameCount() throws(PlaybackError) -> Int
    /// Moves to PCM frame `frame`, sample-accurately.
    func seek(toFrame frame: Int) throws(PlaybackError)
    /// Asks the decoder to hand out its PCM already multiplied by `factor` (an item's loudness
    /// level), before its first chunk. True when it does so (libmpg123 scales its synthesis, at no
    /// cost and with one rounding instead of two); false when the queue must scale the samples.
    func applyLevel(_ factor: Float) -> Bool
    /// Asks the decoder to hand out interleaved 32-bit float samples (full scale 1, nothing cut
    /// at it) instead of 16-bit ones, before its first chunk: what the loudness meter reads where
    /// a decoder can (FFmpeg's codecs decode to float or to more than 16 bits). True when it does.
    func handOutFloat() -> Bool
}

extension AudioDecoder {
    public func applyLevel(_ factor: Float) -> Bool { false }
    public func handOutFloat() -> Bool { false }
}

/// Opens the right decoder for a file's bytes: MPEG audio on libmpg123 (its PCM bit-identical to
/// mpg123's), WAV, MP4/M4A and ADTS AAC, Ogg (Vorbis, Opus), FLAC, WebM/Matroska and AIFF on FFmpeg's libraries.
public enum AudioDecoders {
    /// The formats a narration may be in, as their bytes say.
    public static let playableKinds: Set<MediaKind> = [.mp3, .wav, .mp4, .aac, .ogg, .flac, .matroska, .aiff]

    public static func open(_ url: URL) throws(PlaybackError) -> any AudioDecoder {
        let kind = MediaSniffer.sniff(url)
        switch kind {
        case .mp3: return try MP3Decoder(contentsOf: url)
        case .wav, .mp4, .aac, .ogg, .flac, .matroska, .aiff: return try FFmpegDecoder(contentsOf: url, kind: kind)
        case .empty: throw .emptyFile(path: url.path)
        case .unreadable:
            // Say why: missing, not a regular file, or unreadable.
            do { close(try InputFile.open(url.path)) } catch { throw PlaybackError(input: error) }
            throw .unreadable(path: url.path, reason: "read error")
        case .unknown: throw .unsupported(path: url.path, kind: kind)
        }
    }

    public static func open(data: Data, name: String = "<memory>") throws(PlaybackError) -> any AudioDecoder {
        let kind = MediaSniffer.sniff(data: data)
        switch kind {
        case .mp3: return try MP3Decoder(data: data, name: name)
        case .wav, .mp4, .aac, .ogg, .flac, .matroska, .aiff:
            return try FFmpegDecoder(data: data, name: name, kind: kind)
        case .empty: throw .emptyFile(path: name)
        case .unreadable: throw .unreadable(path: name, reason: "read error")
        case .unknown: throw .unsupported(path: name, kind: kind)
        }
    }

    /// nil when the file plays: its format is one walkscape decodes and its first audio decodes;
    /// otherwise why not, in a few words ("looks like MP4/AAC: holds no audio stream ...").
    public static func problem(_ url: URL) -> String? {
        do {
            let decoder = try open(url)
            guard try decoder.nextChunk() != nil else { return "holds no audio" }
            return nil
        } catch {
            return error.reason
        }
    }
}

/// What a media file's first bytes say it is, whatever its name says.
///
/// Upstream media is not always what its extension claims (an AAC file named `.mp3`), so `lint`
/// and the decoder trust the bytes, and name the real format in their messages.
public enum MediaKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// MPEG audio (layer I/II/III), possibly behind an ID3v2 tag.
    case mp3
    /// An ISO base media file (`ftyp`): MP4, M4A (usually AAC), MOV, 3GP.
    case mp4
    /// Raw AAC in ADTS framing.
    case aac
    /// RIFF/WAVE, or its 64-bit forms RF64 and BW64 (a broadcast WAV past 4 GB).
    case wav
    /// An Ogg container (Vorbis, Opus).
    case ogg
    /// FLAC.
    case flac
    /// Matroska or WebM (Opus or Vorbis inside): what browsers record.
    case matroska
    /// AIFF or AIFF-C: an editor's export on a Mac.
    case aiff
    /// Zero bytes.
    case empty
    /// The file could not be opened or read.
    case unreadable
    /// Nothing we recognise (random bytes, HTML error pages saved as `.mp3`, ...).
    case unknown

    /// How a message names it: "looks like MP4/AAC".
    public var looksLike: String {
        switch self {
        case .mp3: return "looks like MPEG audio"
        case .mp4: return "looks like MP4/AAC"
        case .aac: return "looks like raw AAC (ADTS)"
        case .wav: return "looks like WAV"
        case .ogg: return "looks like Ogg (Vorbis/Opus)"
        case .flac: return "looks like FLAC"
        case .matroska: return "looks like WebM/Matroska"
        case .aiff: return "looks like AIFF"
        case .empty: return "the file is empty"
        case .unreadable: return "the file cannot be read"
        case .unknown: return "not a known audio format"
        }
    }

    /// The media type a server sends such bytes with; nil when they are not audio.
    public var mimeType: String? {
        switch self {
        case .mp3: "audio/mpeg"
        case .mp4: "audio/mp4"
        case .aac: "audio/aac"
        case .wav: "audio/wav"
        case .ogg: "audio/ogg"
        case .flac: "audio/flac"
        case .matroska: "audio/webm"
        case .aiff: "audio/aiff"
        case .empty, .unreadable, .unknown: nil
        }
    }

    public var description: String {
        switch self {
        case .mp3: return "MP3"
        case .mp4: return "MP4/AAC"
        case .aac: return "AAC (ADTS)"
        case .wav: return "WAV"
        case .ogg: return "Ogg"
        case .flac: return "FLAC"
        case .matroska: return "WebM/Matroska"
        case .aiff: return "AIFF"
        case .empty: return "empty"
        case .unreadable: return "unreadable"
        case .unknown: return "unknown"
        }
    }
}

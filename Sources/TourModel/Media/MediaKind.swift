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
    /// RIFF/WAVE.
    case wav
    /// An Ogg container (Vorbis, Opus).
    case ogg
    /// FLAC.
    case flac
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
        case .empty: return "empty"
        case .unreadable: return "unreadable"
        case .unknown: return "unknown"
        }
    }
}

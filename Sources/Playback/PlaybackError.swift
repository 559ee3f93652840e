import FileAccess
import TourModel

/// Everything that can go wrong while probing, decoding or playing audio, phrased for the person at
/// the terminal: one line, naming the file or device, and the way out when there is one.
public enum PlaybackError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file is not there (or is not a regular file).
    case fileNotFound(path: String)
    /// The file exists but could not be read (permissions, I/O).
    case unreadable(path: String, reason: String)
    /// Something other than a regular file (a FIFO, a device, a folder): refused unopened.
    case notAFile(path: String, kind: FileKind)
    /// A zero-byte file: usually an interrupted download.
    case emptyFile(path: String)
    /// Not audio walkscape plays: `kind` says what the bytes look like, `detail` what was found
    /// (a video-only MP4, an encrypted stream, a format no decoder here reads).
    case unsupported(path: String, kind: MediaKind, detail: String? = nil)
    /// The decoder gave up on the stream.
    case decodeFailed(path: String, reason: String)
    /// The ALSA device could not be opened: the usual case on a machine with no sound card.
    case noSoundCard(device: String, reason: String)
    /// The ALSA device was open but refused the format or failed beyond recovery.
    case deviceFailed(device: String, reason: String)
    /// An output file (`--output out.wav`) could not be written.
    case outputFailed(path: String, reason: String)
    /// A subtitle file that cannot be read as SRT.
    case badSubtitles(file: String, line: Int, reason: String)

    /// One line for a terminal.
    public var message: String {
        switch self {
        case .fileNotFound(let path):
            return "\(path): no such file"
        case .unreadable(let path, let reason):
            return "\(path): cannot read (\(reason))"
        case .notAFile(let path, let kind):
            return "\(path): \(kind.refusal)"
        case .emptyFile(let path):
            return "\(path): the file is empty"
        case .unsupported(let path, let kind, let detail):
            return
                "\(path): \(detail.map { "\(kind.looksLike): \($0)" } ?? "not audio walkscape plays (\(kind.looksLike))")"
        case .decodeFailed(let path, let reason):
            return "\(path): cannot decode (\(reason))"
        case .noSoundCard(let device, let reason):
            return "no sound card: could not open ALSA device '\(device)' (\(reason))"
        case .deviceFailed(let device, let reason):
            return "ALSA device '\(device)' failed (\(reason))"
        case .outputFailed(let path, let reason):
            return "\(path): cannot write (\(reason))"
        case .badSubtitles(let file, let line, let reason):
            return "\(file): line \(line): \(reason)"
        }
    }

    /// A process exit status from sysexits(3), so scripts can tell bad input from a bad machine.
    public var exitCode: Int32 {
        switch self {
        case .fileNotFound, .unreadable, .notAFile, .emptyFile: return 66  // EX_NOINPUT
        case .unsupported, .decodeFailed, .badSubtitles: return 65  // EX_DATAERR
        case .noSoundCard, .deviceFailed: return 69  // EX_UNAVAILABLE
        case .outputFailed: return 73  // EX_CANTCREAT
        }
    }

    public var description: String { message }

    /// The message without the file it names, for a line that names the file already.
    public var reason: String {
        switch self {
        case .fileNotFound: return "no such file"
        case .unreadable(_, let reason): return "cannot read (\(reason))"
        case .notAFile(_, let kind): return kind.refusal
        case .emptyFile: return "the file is empty"
        case .unsupported(_, let kind, let detail):
            return detail.map { "\(kind.looksLike): \($0)" } ?? "not audio walkscape plays (\(kind.looksLike))"
        case .decodeFailed(_, let reason): return "cannot decode (\(reason))"
        default: return message
        }
    }

    /// An input that could not be opened, in the words of its kind of failure.
    public init(input error: FileAccessError) {
        switch error.cause {
        case .missing where error.brokenLinkTarget == nil: self = .fileNotFound(path: error.path)
        case .notRegular(let kind): self = .notAFile(path: error.path, kind: kind)
        default: self = .unreadable(path: error.path, reason: error.reason)
        }
    }

    /// An output that could not be written.
    public init(output error: FileAccessError) {
        self = .outputFailed(path: error.path, reason: error.reason)
    }
}

import FileAccess

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
    /// The bytes are something other than MPEG audio; `kind` says what they look like.
    case notMP3(path: String, kind: MediaKind)
    /// libmpg123 gave up on the stream.
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
        case .notMP3(let path, let kind):
            return "\(path): not an MP3: \(kind.looksLike)"
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
        case .notMP3, .decodeFailed, .badSubtitles: return 65  // EX_DATAERR
        case .noSoundCard, .deviceFailed: return 69  // EX_UNAVAILABLE
        case .outputFailed: return 73  // EX_CANTCREAT
        }
    }

    public var description: String { message }

    /// An input that could not be opened, in the words of its kind of failure.
    public init(input error: FileAccessError) {
        switch error.cause {
        case .missing: self = .fileNotFound(path: error.path)
        case .notRegular(let kind): self = .notAFile(path: error.path, kind: kind)
        default: self = .unreadable(path: error.path, reason: error.reason)
        }
    }

    /// An output that could not be written.
    public init(output error: FileAccessError) {
        self = .outputFailed(path: error.path, reason: error.reason)
    }
}

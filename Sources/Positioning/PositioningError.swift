import FileAccess

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A problem a user can act on: a trace that cannot be opened or is not a trace, gpsd that
/// cannot be reached. One line, no stack trace, and the exit code a command should end with
/// (the BSD `sysexits.h` values, so scripts can tell bad input from a missing service).
public struct PositioningError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var exitCode: Int32

    public init(_ message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }

    public var description: String { message }

    /// EX_DATAERR: the input exists but is not what it should be.
    public static let dataError: Int32 = 65
    /// EX_NOINPUT: the input file is missing or unreadable.
    public static let noInput: Int32 = 66
    /// EX_UNAVAILABLE: a service (gpsd) is not there.
    public static let unavailable: Int32 = 69

    static func cannotOpen(_ path: String, errno code: Int32) -> PositioningError {
        PositioningError("\(path): cannot open (\(String(cString: strerror(code))))", exitCode: noInput)
    }

    /// Why a trace could not be opened: a FIFO, device or folder says what it is (a recording is
    /// read twice, so it must be a file), anything else gives the system's reason.
    static func cannotOpen(_ error: FileAccessError) -> PositioningError {
        switch error.cause {
        case .notRegular(.folder):
            PositioningError("\(error.path): \(FileKind.folder.refusal)", exitCode: noInput)
        case .notRegular(let kind):
            PositioningError("\(error.path): \(kind.refusal) (save the trace to a file first)", exitCode: noInput)
        case .missing where error.brokenLinkTarget != nil:
            PositioningError("\(error.path): \(error.reason)", exitCode: noInput)
        case .missing:
            cannotOpen(error.path, errno: ENOENT)
        case .system(let code):
            cannotOpen(error.path, errno: code)
        default:
            PositioningError("\(error.path): cannot open (\(error.reason))", exitCode: noInput)
        }
    }

    static func notATrace(_ path: String) -> PositioningError {
        PositioningError(
            "\(path): not an NMEA 0183 or GPX trace (no `$` sentence or `<gpx` element near the start)",
            exitCode: dataError)
    }
}

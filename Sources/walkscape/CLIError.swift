import ArgumentParser

/// Every error a command reports: one line for the user, and the exit code that goes with it.
/// The root command prints `walkscape: <message>` and exits; no stack trace ever reaches a user.
struct CLIError: Error, CustomStringConvertible {
    enum Kind {
        /// Bad flags, bad configuration (exit 64, EX_USAGE).
        case usage
        /// Bad input data: a broken tour folder, an unreadable trace (exit 65, EX_DATAERR).
        case data
        /// A missing service or device: no gpsd, no sound card (exit 69, EX_UNAVAILABLE).
        case unavailable
        /// Anything else that failed (exit 1).
        case failure
    }

    var kind: Kind
    var message: String

    static func usage(_ message: String) -> CLIError { CLIError(kind: .usage, message: message) }
    static func data(_ message: String) -> CLIError { CLIError(kind: .data, message: message) }
    static func unavailable(_ message: String) -> CLIError { CLIError(kind: .unavailable, message: message) }
    static func failure(_ message: String) -> CLIError { CLIError(kind: .failure, message: message) }

    var exitCode: ExitCode {
        switch kind {
        case .usage: ExitCode(64)
        case .data: ExitCode(65)
        case .unavailable: ExitCode(69)
        case .failure: ExitCode(1)
        }
    }

    var description: String { message }
}

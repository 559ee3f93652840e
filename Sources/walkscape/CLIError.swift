import ArgumentParser
import TourAPI

/// Every error a command reports: one line for the user, and the exit code that goes with it.
/// The root command prints `walkscape: <message>` and exits; no stack trace ever reaches a user.
/// The codes follow sysexits(3); README.md has the table.
struct CLIError: Error, CustomStringConvertible {
    enum Kind {
        /// Bad flags, bad configuration, an ambiguous TOUR (exit 64, EX_USAGE).
        case usage
        /// Bad input data: a broken tour folder, an unreadable trace; what the service refused as
        /// invalid, such as an expired or used-up voucher (exit 65, EX_DATAERR).
        case data
        /// No such thing: an unknown tour, voucher code or language version (exit 66, EX_NOINPUT).
        case notFound
        /// A missing service or device: no gpsd, no sound card, the API unreachable (exit 69, EX_UNAVAILABLE).
        case unavailable
        /// It exists already: the email is registered, the tour already unlocked (exit 73, EX_CANTCREAT).
        case alreadyExists
        /// Try again later: a timeout, a broken connection, a busy or failing service (exit 75, EX_TEMPFAIL).
        case temporary
        /// The service answered something walkscape does not understand (exit 76, EX_PROTOCOL).
        case protocolError
        /// Not logged in, the session expired, wrong password, a locked tour (exit 77, EX_NOPERM).
        case noPermission
        /// Anything else that failed (exit 1).
        case failure
    }

    var kind: Kind
    var message: String

    static func usage(_ message: String) -> CLIError { CLIError(kind: .usage, message: message) }
    static func data(_ message: String) -> CLIError { CLIError(kind: .data, message: message) }
    static func notFound(_ message: String) -> CLIError { CLIError(kind: .notFound, message: message) }
    static func unavailable(_ message: String) -> CLIError { CLIError(kind: .unavailable, message: message) }
    static func failure(_ message: String) -> CLIError { CLIError(kind: .failure, message: message) }

    var exitCode: ExitCode {
        switch kind {
        case .usage: ExitCode(64)
        case .data: ExitCode(65)
        case .notFound: ExitCode(66)
        case .unavailable: ExitCode(69)
        case .alreadyExists: ExitCode(73)
        case .temporary: ExitCode(75)
        case .protocolError: ExitCode(76)
        case .noPermission: ExitCode(77)
        case .failure: ExitCode(1)
        }
    }

    var description: String { message }
}

extension CLIError {
    /// The API client's failure, with the exit code of its kind.
    init(_ error: APIError) {
        let kind: Kind =
            switch error.kind {
            case .invalidConfiguration: .usage
            case .notLoggedIn, .sessionExpired, .invalidCredentials, .forbidden: .noPermission
            case .notFound: .notFound
            case .alreadyExists: .alreadyExists
            case .rejected, .tooLarge: .data
            case .unavailable: .unavailable
            case .temporary: .temporary
            case .protocolError: .protocolError
            case .local: .failure
            }
        self.init(kind: kind, message: error.message)
    }
}

import TourAPI

/// Every error the application layer reports: one line for the user, and what sort of failure it
/// is. The command line turns the kind into an exit code (sysexits(3); README.md has the table),
/// prints `walkscape: <message>` and exits; no stack trace ever reaches a user.
package struct AppError: Error, CustomStringConvertible {
    package init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    package enum Kind {
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

    package var kind: Kind
    package var message: String
    /// The message begins with the name of what failed (a tour's slug): a caller listing several
    /// does not name it again.
    package var namesItsSubject = false

    package static func usage(_ message: String) -> AppError { AppError(kind: .usage, message: message) }
    package static func data(_ message: String) -> AppError { AppError(kind: .data, message: message) }
    package static func notFound(_ message: String) -> AppError { AppError(kind: .notFound, message: message) }
    package static func unavailable(_ message: String) -> AppError { AppError(kind: .unavailable, message: message) }
    package static func failure(_ message: String) -> AppError { AppError(kind: .failure, message: message) }

    package var description: String { message }
}

extension AppError {
    /// The API client's failure, with the exit code of its kind.
    package init(_ error: APIError) {
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
        self.init(kind: kind, message: error.message + Self.advice(error.remedy))
    }

    /// A library's remedy in the command line's words, appended to its message.
    package static func advice(_ remedy: Remedy?) -> String {
        switch remedy {
        case nil: ""
        case .logIn: ": walkscape login"
        case .logInOrRegister: ": walkscape login (or walkscape register)"
        case .logOutThenLogIn: ": walkscape logout, then walkscape login"
        case .redeemVoucher: ": unlock it with a voucher (walkscape redeem CODE)"
        case .downloadLanguage(let tour, let language): ": walkscape download \(tour) -l \(language)"
        }
    }
}

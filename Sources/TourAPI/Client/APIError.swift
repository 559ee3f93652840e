import Foundation
import TourModel

/// What a person can do about a failure. Library errors state the facts and name the way out
/// here; the command line words it (a command, a flag), so no library names a command.
public enum Remedy: Sendable, Hashable {
    /// Log in (again) to the service.
    case logIn
    /// Log in, or create an account first.
    case logInOrRegister
    /// The saved credentials are damaged: log out, then log in.
    case logOutThenLogIn
    /// The tour is locked: redeem a voucher for it.
    case redeemVoucher
    /// The tour is installed, but not in this language: download that language.
    case downloadLanguage(tour: String, language: String)
}

/// A failure of the API client, phrased for the person at the terminal: one line, never a token,
/// a header or a response body. `kind` says what sort of failure it is; the command line turns it
/// into an exit code, and `remedy` into advice.
public struct APIError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// A service URL walkscape will not use.
        case invalidConfiguration
        /// No credentials for this service.
        case notLoggedIn
        /// The session cannot be renewed (the refresh token expired or was refused): log in again.
        case sessionExpired
        /// Wrong email or password.
        case invalidCredentials
        /// 403: a protected tour without access.
        case forbidden
        /// 404: no such tour, voucher, or language version.
        case notFound
        /// 409: the account or the access exists already.
        case alreadyExists
        /// 400: the service refused what was sent (an expired voucher, a short password).
        case rejected
        /// 413: a body larger than the service accepts.
        case tooLarge
        /// The service cannot be reached at all: refused, no connection within the connect
        /// timeout, no such host, no secure connection.
        case unavailable
        /// Worth trying again later: no answer in time, connection broken, busy (429) or failing (5xx).
        case temporary
        /// An answer in neither dialect, or a status the contract does not have.
        case protocolError
        /// The local credentials cannot be read or written.
        case local
    }

    public var kind: Kind
    public var message: String
    /// The HTTP status, when the service answered.
    public var status: Int?
    /// The service's own messages (`message` of the error body): a rejected analytics batch names
    /// its bad events there.
    public var serverMessages: [String]
    /// How long the service asked to wait (`Retry-After` of a 429 or 503), for a caller that keeps
    /// its own schedule of attempts (the analytics batcher).
    public var retryAfter: Duration?
    /// What failed below HTTP, when no answer came: whether the service could be reached at all
    /// (`cannotConnect`, `connectTimeout`) or broke off (`timedOut`, `connectionLost`).
    public var transport: TransportError.Kind?
    /// The way out, when there is one the person can take.
    public var remedy: Remedy?

    public init(
        _ kind: Kind, _ message: String, status: Int? = nil, serverMessages: [String] = [],
        retryAfter: Duration? = nil, transport: TransportError.Kind? = nil, remedy: Remedy? = nil
    ) {
        self.kind = kind
        self.message = message
        self.remedy = remedy
        self.status = status
        self.serverMessages = serverMessages
        self.retryAfter = retryAfter
        self.transport = transport
    }

    public var description: String { message }

    /// For a request never sent twice (a registration, a redemption): cut off once it may have
    /// reached the service, or answered by a gateway whose service went quiet (502, 504), it may
    /// have gone through, and trying again is not the advice: `outcome` says how to find out.
    public func mayHaveGoneThrough(_ outcome: String) -> APIError {
        guard transport == .timedOut || transport == .connectionLost || status == 502 || status == 504 else {
            return self
        }
        var text = message
        if let advice = ["; try again later", "; try again"].first(where: { text.hasSuffix($0) }) {
            text.removeLast(advice.count)
        }
        var copy = self
        copy.message = text + "; " + outcome
        return copy
    }

    public static let loginAgain = "log in again"

    public static var sessionExpired: APIError { APIError(.sessionExpired, loginAgain, remedy: .logIn) }

    public static func notLoggedIn(_ service: URL) -> APIError {
        APIError(.notLoggedIn, "not logged in to \(ServiceURL.origin(service))", remedy: .logInOrRegister)
    }

    /// A failure below HTTP.
    public init(_ error: TransportError, service: URL) {
        let origin = ServiceURL.origin(service)
        switch error.kind {
        case .cannotConnect, .noSuchHost:
            self.init(.unavailable, "cannot reach the service at \(origin) (\(error.detail))")
        case .connectTimeout:
            // Refused or silent, the service cannot be reached (exit 69, as `sync` always said).
            self.init(.unavailable, "cannot reach the service at \(origin): \(error.detail); try again later")
        case .timedOut:
            self.init(.temporary, "the service at \(origin) did not answer: \(error.detail); try again later")
        case .connectionLost:
            self.init(.temporary, "the connection to \(origin) broke: \(error.detail); try again")
        case .tls:
            self.init(.unavailable, "no secure connection to \(origin): \(error.detail)")
        case .tooLarge:
            self.init(.protocolError, "the service at \(origin) sent an answer too large to read: \(error.detail)")
        case .invalidRequest:
            self.init(.invalidConfiguration, "cannot send a request to \(origin): \(error.detail)")
        case .redirectLoop:
            self.init(.protocolError, "the service at \(origin) \(error.detail)")
        case .cancelled:
            self.init(.local, "cancelled")
        }
        transport = error.kind
    }

    /// An error status with nothing more specific to say than the contract's status table.
    public static func status(_ status: Int, body: APIErrorBody?, request: String, retryAfter: Duration?) -> APIError {
        let said = body.map { ": \($0.summary)" } ?? ""
        let messages = body?.messages ?? []
        switch status {
        case 400:
            return APIError(
                .rejected, "the service refused \(request)\(said)", status: status, serverMessages: messages)
        case 401:
            return APIError(.sessionExpired, loginAgain, status: status, remedy: .logIn)
        case 403:
            return APIError(.forbidden, "the service denies access to \(request)\(said)", status: status)
        case 404:
            return APIError(.notFound, "not found: \(request)\(said)", status: status)
        case 409:
            return APIError(.alreadyExists, "the service says it exists already (\(request))\(said)", status: status)
        case 413:
            return APIError(.tooLarge, "the service refused \(request) as too large", status: status)
        case 429:
            let when = retryAfter.map { "; try again in \(Self.seconds($0))" } ?? "; try again later"
            return APIError(
                .temporary, "the service is busy (too many requests)\(when)", status: status, retryAfter: retryAfter)
        case 500...599:
            return APIError(
                .temporary, "the service failed on \(request) (HTTP \(status)); try again later", status: status,
                retryAfter: retryAfter)
        case 300...399:
            return APIError(
                .protocolError,
                "the service redirected \(request) somewhere walkscape does not follow (HTTP \(status))", status: status
            )
        default:
            return APIError(.protocolError, "unexpected HTTP \(status) from \(request)", status: status)
        }
    }

    /// An answer that is in neither of the API's dialects.
    public static func undecodable(_ request: String, _ error: any Error) -> APIError {
        APIError(.protocolError, "the service's answer to \(request) is not understood (\(describe(error)))")
    }

    static func describe(_ error: any Error) -> String { DecodingProblem.describe(error) }

    /// Whole seconds, rounded up; any duration (no conversion through `Double` that a huge one
    /// would not survive).
    static func seconds(_ duration: Duration) -> String {
        let (whole, fraction) = duration.components
        let (up, overflow) = whole.addingReportingOverflow(fraction > 0 ? 1 : 0)
        return "\(overflow ? whole : up) s"
    }
}

/// Why an exchange failed below HTTP: no status was received, or the body broke off.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// Refused, unreachable, or the host name could not be looked up (no name service to ask,
        /// or it failed): nothing was sent.
        case cannotConnect
        /// The name service answered that no host has this name: nothing was sent, and asking
        /// again will not make one (a mistyped or retired host, not a link down).
        case noSuchHost
        /// No connection within the connect timeout: nothing was sent.
        case connectTimeout
        /// Connected, but the answer (or the next bytes of its body) did not come in time.
        case timedOut
        /// The connection broke during the exchange: the request may have reached the server.
        case connectionLost
        /// The secure connection could not be set up or its certificate verified.
        case tls
        /// The answer was larger than the caller accepts.
        case tooLarge
        /// The request itself cannot be sent (a malformed URL).
        case invalidRequest
        /// Redirects that come back to a URL already visited, or more of them than are followed.
        case redirectLoop
        case cancelled
    }

    public var kind: Kind
    /// What happened, in words; never a header or a body (they may hold credentials).
    public var detail: String

    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// True when the request cannot have reached the server, so even a request that must not be
    /// repeated (a login, a voucher) may be sent again.
    public var requestWasNotSent: Bool { kind.requestWasNotSent }

    /// True for failures that another attempt may not meet.
    public var isTransient: Bool { kind.isTransient }

    public var description: String { detail }
}

/// The rules of a kind, in one place: the client's retries, a download's patience and the
/// analytics sender's "unreachable" all read them (an `APIError` keeps the kind alone).
extension TransportError.Kind {
    /// No connection was made, so nothing was sent.
    public var requestWasNotSent: Bool { [.cannotConnect, .noSuchHost, .connectTimeout].contains(self) }

    /// Another attempt may not meet it.
    public var isTransient: Bool {
        switch self {
        case .cannotConnect, .connectTimeout, .timedOut, .connectionLost: true
        case .noSuchHost, .tls, .tooLarge, .invalidRequest, .redirectLoop, .cancelled: false
        }
    }
}

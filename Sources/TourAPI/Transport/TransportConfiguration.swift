/// Timeouts and limits of the real transport.
public struct TransportConfiguration: Sendable, Hashable {
    /// How long to wait for a connection (TCP and TLS) to be established.
    public var connectTimeout: Duration
    /// How long a connection may stay silent while an answer is expected (head or body).
    public var readTimeout: Duration
    /// How long an exchange may take until the answer's head has arrived, when the request does
    /// not say.
    public var requestTimeout: Duration
    /// Whom a secure connection's certificate must come from.
    public var authorities: TrustedAuthorities
    /// Which requests go through a proxy (the environment's `https_proxy` and the like).
    public var proxies: ProxyRule

    public init(
        connectTimeout: Duration = .seconds(5), readTimeout: Duration = .seconds(20),
        requestTimeout: Duration = .seconds(30), authorities: TrustedAuthorities = .system,
        proxies: ProxyRule = .none
    ) {
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.requestTimeout = requestTimeout
        self.authorities = authorities
        self.proxies = proxies
    }
}

import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSOCKS
import NIOSSL
import Synchronization
import TourModel

/// The real transport: an AsyncHTTPClient on the process's one event-loop thread.
///
/// It follows no redirect (`RequestExecutor` does, under `RedirectRule`, so a bearer token never
/// travels to another origin) and never retries a failed connection by itself (the executor does,
/// knowing which requests may be repeated). Call `shutdown()` on every path before exiting.
public final class AsyncHTTPClientTransport: HTTPTransport {
    public let configuration: TransportConfiguration
    /// The client of plain-HTTP requests made directly.
    private let plain: HTTPClient
    /// The other clients, each made at its first request: the secure one (when the authorities
    /// named in the settings are read, `TrustedAuthorities`), and one per proxy and scheme. None
    /// after `shutdown()`.
    private let others = Mutex<(clients: [ClientKey: HTTPClient], shutDown: Bool)>(([:], false))

    /// What a client is for: secure connections or not, through which proxy.
    struct ClientKey: Hashable {
        var secure: Bool
        var proxy: ProxyRule.Server?
    }

    /// One thread is plenty for a command-line client. Every client of the process runs on it,
    /// and it lives as long as the process: a client is shut down (its connections closed), the
    /// thread is not started and joined again for each (a download's analytics go out on a second
    /// client just after it).
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    public init(configuration: TransportConfiguration = TransportConfiguration()) {
        self.configuration = configuration
        plain = HTTPClient(eventLoopGroup: Self.group, configuration: Self.clientConfiguration(configuration, tls: nil))
    }

    static func clientConfiguration(
        _ configuration: TransportConfiguration, tls: TLSConfiguration?, proxy: ProxyRule.Server? = nil
    ) -> HTTPClient.Configuration {
        var ahc = HTTPClient.Configuration()
        ahc.redirectConfiguration = .disallow
        ahc.timeout = .init(
            connect: Self.timeAmount(configuration.connectTimeout),
            read: Self.timeAmount(configuration.readTimeout))
        ahc.connectionPool.retryConnectionEstablishment = false
        ahc.decompression = .disabled
        ahc.tlsConfiguration = tls
        ahc.proxy = proxy?.client
        // Reads of up to 1 MiB instead of NIO's 64 KiB: a media body is handed to its reader one
        // read at a time (AsyncHTTPClient buffers one), so a 200 MB download is 16x fewer
        // hand-offs between the event loop and the download task. The buffer grows only for a
        // connection that fills it (API answers stay small). Measured: 0.45 s -> 0.35 s for a
        // 200 MB tour over loopback (docs/store.md).
        ahc.http1_1ConnectionDebugInitializer = { channel in
            channel.setOption(
                ChannelOptions.recvAllocator,
                value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 1 << 20))
        }
        return ahc
    }

    /// The client for `url`, and the proxy it goes through: the plain one for http straight to
    /// the host; otherwise the one for its scheme and proxy, made now if this is its first request
    /// (a secure one reads the authorities for it).
    private func client(for url: URL) throws(TransportError) -> (HTTPClient, ProxyRule.Server?) {
        let key = ClientKey(
            secure: url.scheme?.lowercased() == "https", proxy: try configuration.proxies.server(for: url))
        if !key.secure, key.proxy == nil { return (plain, nil) }
        if let client = others.withLock({ $0.clients[key] }) { return (client, key.proxy) }
        let tls = key.secure ? try configuration.authorities.load().tlsConfiguration : nil
        let made: HTTPClient? = others.withLock { state in
            guard !state.shutDown else { return nil }
            if let client = state.clients[key] { return client }
            let client = HTTPClient(
                eventLoopGroup: Self.group,
                configuration: Self.clientConfiguration(configuration, tls: tls, proxy: key.proxy))
            state.clients[key] = client
            return client
        }
        // As the plain client says after its shutdown: nothing more is sent.
        guard let made else { throw TransportError(.cancelled, "the client is shut down") }
        return (made, key.proxy)
    }

    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        // Whoever asks: a port past 65535 stops the process where the connection is made.
        guard request.url.hasUsablePort else {
            throw TransportError(.invalidRequest, "the port of \(ServiceURL.origin(request.url)) is not one (1-65535)")
        }
        let (client, proxy) = try client(for: request.url)
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headers { outgoing.headers.add(name: field.name, value: field.value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let timeout = request.timeout ?? configuration.requestTimeout
        let deadline = request.boundsWholeAnswer ? ContinuousClock.now + timeout : nil
        let response: HTTPClientResponse
        do {
            response = try await client.execute(outgoing, timeout: Self.timeAmount(timeout))
        } catch {
            let failure = Self.classify(error, timeout: timeout, configuration: configuration)
            if let proxy { throw Self.throughProxy(error, failure: failure, proxy: proxy) }
            if failure.kind == .tls, let refusal = Self.refusal(error), let host = request.url.host {
                throw await untrusted(host: host, port: request.url.port ?? 443, refusal: refusal, otherwise: failure)
            }
            throw failure
        }
        var headers = HTTPHeaderFields()
        for (name, value) in response.headers { headers.add(name, value) }
        let body = response.body
        let configuration = configuration
        return HTTPResponse(
            status: Int(response.status.code), headers: headers,
            body: ResponseBody {
                var chunks = body.makeAsyncIterator()
                return ResponseBody.AsyncIterator {
                    let chunk: BodyChunk?
                    do {
                        chunk = try await chunks.next().map { BodyChunk(buffer: $0) }
                    } catch let error as HTTPClientError where error == .readTimeout {
                        // Mid-body the answer had come: its bytes stopped.
                        throw TransportError(
                            .timedOut, "nothing arrived for \(Self.seconds(configuration.readTimeout))")
                    } catch {
                        throw Self.classify(error, timeout: timeout, configuration: configuration)
                    }
                    // Bytes that trickle in keep the read timeout from firing; the deadline does not.
                    if let deadline, chunk != nil, ContinuousClock.now > deadline {
                        throw TransportError(
                            .timedOut, "the answer did not arrive whole within \(Self.seconds(timeout))")
                    }
                    return chunk
                }
            }, url: request.url)
    }

    public func shutdown() async throws {
        let others = others.withLock { state in
            state.shutDown = true
            defer { state.clients = [:] }
            return Array(state.clients.values)
        }
        // Every one, whatever the first says: a client not shut down stops the process at its end.
        var failure: (any Error)?
        for client in [plain] + others {
            do { try await client.shutdown() } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }

    /// Names what went wrong in the terms the retry rules need: was anything sent, is it worth
    /// another attempt.
    static func classify(_ error: any Error, timeout: Duration, configuration: TransportConfiguration) -> TransportError
    {
        switch error {
        case let error as TransportError:
            return error
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout, .tlsHandshakeTimeout:
                return TransportError(.connectTimeout, "no connection within \(seconds(configuration.connectTimeout))")
            case .readTimeout:
                return TransportError(.timedOut, "no answer within \(seconds(configuration.readTimeout))")
            case .deadlineExceeded:
                return TransportError(.timedOut, "no answer within \(seconds(timeout))")
            case .remoteConnectionClosed:
                return TransportError(.connectionLost, "the connection closed before the answer was complete")
            case .cancelled:
                return TransportError(.cancelled, "cancelled")
            case .invalidURL, .emptyHost, .emptyScheme:
                return TransportError(.invalidRequest, "not a URL walkscape can request")
            default:
                return TransportError(.connectionLost, "the exchange failed (\(error))")
            }
        case let error as NIOConnectionError:
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                // "No such name" from the name service is an answer; a lookup that could not be
                // made (no network, no name server: EAI_AGAIN) may work on the next try.
                let answers = [error.dnsAError, error.dnsAAAAError].compactMap { $0 }
                if answers.allSatisfy({ Self.saysNoSuchName($0) }) {
                    return TransportError(.noSuchHost, "no host is named \(error.host)")
                }
                return TransportError(.cannotConnect, "the host name \(error.host) does not resolve")
            }
            let reasons = error.connectionErrors.map { failure in
                (failure.error as? IOError).map { String(cString: strerror($0.errnoCode)) }
                    ?? String(describing: failure.error)
            }
            return TransportError(.cannotConnect, Set(reasons).sorted().joined(separator: ", ").lowercased())
        case let error as IOError:
            if [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH].contains(error.errnoCode) {
                return TransportError(.cannotConnect, String(cString: strerror(error.errnoCode)).lowercased())
            }
            return TransportError(.connectionLost, String(cString: strerror(error.errnoCode)).lowercased())
        case let error as HTTPParserError:
            // The service closed the connection part-way through its answer, or sent something
            // that is not HTTP: either way another attempt may fare better.
            if error == .invalidEOFState || error == .closedConnection {
                return TransportError(.connectionLost, "the connection closed before the answer was complete")
            }
            return TransportError(.connectionLost, "the answer was not valid HTTP (\(error))")
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError:
            return tlsFailure(error)
        case is CancellationError:
            return TransportError(.cancelled, "cancelled")
        default:
            return TransportError(.connectionLost, "the exchange failed (\(error))")
        }
    }

    /// A failure of a request sent through `proxy`, in words that name it: the connection made
    /// was to the proxy, and a proxy has refusals of its own. A refused certificate is not looked
    /// into again (a second handshake would go straight to the host, which may not be reachable).
    static func throughProxy(_ error: any Error, failure: TransportError, proxy: ProxyRule.Server) -> TransportError {
        let named = "the proxy \(proxy.shown)"
        switch error as? HTTPClientError {
        case .proxyAuthenticationRequired?:
            let hint =
                proxy.user == nil
                ? "asks for a user name and password (http://USER:PASSWORD@HOST:PORT)"
                : "refused the user name and password given"
            return TransportError(.invalidRequest, "\(named) \(hint)")
        case .invalidProxyResponse?:
            // Its own refusal, or the host it could not reach: nothing went to the host. Some
            // proxies (tinyproxy) refuse a wrong password so (401), not with a 407; others allow
            // tunnels to port 443 alone (Squid's and tinyproxy's default rules).
            let why = proxy.user == nil ? "" : "; or it refused the user name and password"
            return TransportError(
                .cannotConnect, "\(named) did not open the way to the host (it may not allow that host or port\(why))")
        case .httpProxyHandshakeTimeout?, .socksHandshakeTimeout?:
            return TransportError(.connectTimeout, "\(named) did not answer")
        default:
            break
        }
        // A SOCKS proxy's own refusals come as they are.
        if let refused = error as? SOCKSError.ConnectionFailed {
            let why: String
            switch refused.reply.value {
            case 2: why = "does not allow that host"
            case 3, 4: why = "cannot reach the host"
            case 5: why = "was refused by the host"
            default: why = "could not connect to the host (SOCKS reply \(refused.reply.value))"
            }
            return TransportError(.cannotConnect, "\(named) \(why)")
        }
        if error is SOCKSError.NoValidAuthenticationMethod || error is SOCKSError.InvalidAuthenticationSelection {
            return TransportError(
                .invalidRequest, "\(named) asks for a login, which walkscape cannot give a SOCKS proxy")
        }
        // A reply that is not SOCKS5: the way to the host was never opened, so nothing was sent.
        if error is SOCKSError.InvalidProtocolVersion || error is SOCKSError.InvalidAddressType
            || error is SOCKSError.InvalidReservedByte || error is SOCKSError.UnexpectedRead
            || error is SOCKSError.InvalidServerState
        {
            return TransportError(.cannotConnect, "\(named) answered with something that is not SOCKS5")
        }
        switch failure.kind {
        case .cannotConnect, .connectTimeout, .noSuchHost:
            return TransportError(failure.kind, "\(named): \(failure.detail)")
        case .cancelled:
            return failure
        default:
            // The connection was the proxy's: what broke may be the proxy, not the host.
            return TransportError(failure.kind, "\(failure.detail) (through \(named))")
        }
    }

    /// The certificate of `host:port` was refused: why, and how to trust an authority of one's own
    /// where that could help; `otherwise` (the failure in general words) when the certificates
    /// cannot be had again.
    func untrusted(
        host: String, port: Int, refusal: CertificateDiagnosis.Refusal, otherwise: TransportError
    ) async -> TransportError {
        let loaded = try? configuration.authorities.load()
        let reason =
            await CertificateDiagnosis.reason(
                host: host, port: port, refusal: refusal, trusted: loaded?.named ?? [],
                group: Self.group,
                timeout: configuration.connectTimeout)
            ?? (otherwise.detail, refusal == .chain)
        // Authorities of one's own already named (`ca-file`; `SSL_CERT_FILE` replaces the
        // system's, often with the same bundle, and a ca-file still adds to it).
        let named = (loaded?.bundles ?? []).filter { !$0.replacesSystem }
        let advice: String
        if !reason.authorityMayHelp {
            advice = ""
        } else if named.isEmpty {
            advice =
                " (to trust an authority of your own: `ca-file = PATH`, its certificate in PEM, in walkscape's settings)"
        } else {
            // Already named, and not enough: what such a file must hold.
            let files = named.map { "\($0.origin) \(TerminalText.echo($0.path))" }.joined(separator: ", ")
            advice =
                " (to trust an authority of your own: `ca-file = PATH`, the certificate at the top of the host's chain in PEM, not an intermediate's; \(files) does not hold it)"
        }
        return TransportError(.tls, reason.words + advice)
    }

    /// How the host's certificate was refused, if that is what failed.
    static func refusal(_ error: any Error) -> CertificateDiagnosis.Refusal? {
        if (error as? NIOSSLExtraError) == .failedToValidateHostname { return .hostName }
        return tlsToken(error) == "CERTIFICATE_VERIFY_FAILED" ? .chain : nil
    }

    /// BoringSSL's name for what failed (`CERTIFICATE_VERIFY_FAILED`, `WRONG_VERSION_NUMBER`), if
    /// the error holds one.
    static func tlsToken(_ error: any Error) -> String? {
        let text = String(describing: error)
        guard let marker = text.range(of: "OPENSSL_internal:") else { return nil }
        let token = text[marker.upperBound...].prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
        return token.isEmpty ? nil : String(token)
    }

    /// A TLS failure in words, never the library's own text (which names the build's source paths
    /// and its types). A connection that closed during the handshake, or mid-answer, is a broken
    /// connection like any other (tried again); the rest are not.
    static func tlsFailure(_ error: any Error) -> TransportError {
        if let ssl = error as? NIOSSLError {
            switch ssl {
            case .uncleanShutdown:
                return TransportError(.connectionLost, "the connection closed before the answer was complete")
            case .handshakeFailed where tlsToken(error) == nil:
                // EOF during the handshake, a reset: nothing of BoringSSL's own to say.
                return TransportError(.connectionLost, "the connection closed during the secure handshake")
            case .failedToLoadCertificate, .noSuchFilesystemObject:
                return TransportError(
                    .tls,
                    "no certificate authorities to check it against (install ca-certificates, or set SSL_CERT_FILE)")
            default: break
            }
        }
        if let extra = error as? NIOSSLExtraError {
            switch extra {
            case .failedToValidateHostname: return TransportError(.tls, "its certificate is for another host")
            case .serverHostnameImpossibleToMatch, .invalidSNIHostname, .cannotUseIPAddressInSNI:
                return TransportError(.tls, "its host name cannot be checked against a certificate")
            default: return TransportError(.tls, "the secure connection failed")
            }
        }
        if let token = tlsToken(error) {
            switch token {
            case "CERTIFICATE_VERIFY_FAILED": return TransportError(.tls, "its certificate could not be verified")
            case "WRONG_VERSION_NUMBER", "HTTP_REQUEST", "UNEXPECTED_RECORD":
                return TransportError(.tls, "it does not speak TLS on that port (plain http?)")
            case "TLSV1_ALERT_PROTOCOL_VERSION", "UNSUPPORTED_PROTOCOL":
                return TransportError(
                    .tls,
                    "it offers only TLS older than 1.2, which walkscape refuses (retired: RFC 8996; curl refuses it too)"
                )
            default:
                return TransportError(
                    .tls,
                    "the secure connection failed (\(token.lowercased().replacingOccurrences(of: "_", with: " ")))")
            }
        }
        return TransportError(.tls, "the secure connection failed")
    }

    /// Whether a lookup's failure is the name service saying the name does not exist
    /// (`EAI_NONAME`), or has no address (`EAI_NODATA`, -5 in glibc, named only under `_GNU_SOURCE`).
    static func saysNoSuchName(_ error: any Error) -> Bool {
        guard let lookup = error as? SocketAddressError.UnknownHost else { return false }
        return lookup.errorCode == Int(EAI_NONAME) || lookup.errorCode == -5
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}

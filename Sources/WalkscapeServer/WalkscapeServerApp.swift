import FileAccess
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import ServiceLifecycle
import TourModel
import UnixSignals

/// The server: opens the data folder, loads the tours, builds the routes and runs until SIGTERM or
/// SIGINT (graceful: requests in flight finish). SIGHUP re-reads the tour folders at once.
public enum WalkscapeServerApp {
    /// Runs the server. `listening` gets the base URL once the socket is bound (with the real port
    /// when 0 was asked for), before any request is served: the address this machine reaches it at
    /// (127.0.0.1 when listening on all interfaces), whatever `--public-url` tells clients elsewhere.
    public static func run(
        _ configuration: ServerConfiguration, logger: Logger,
        listening: @escaping @Sendable (String) -> Void
    ) async throws {
        // Trap SIGHUP before anything else, so an early one reloads rather than kills.
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        // The certificate and key first: a mistake there touches nothing in the data folder.
        let connections = ConnectionCounts()
        let server = try httpServer(configuration, connections: connections, logger: logger)
        let descriptorLimit = MediaBudget.raiseDescriptorLimit()
        let services = try await makeServices(configuration, logger: logger)
        let router = makeRouter(services)
        let allowed = MediaBudget.allowed(descriptorLimit: descriptorLimit, inUse: MediaBudget.descriptorsInUse())
        services.media.lower(to: allowed)
        // Each connection a descriptor, each media answer one more for its file, 32 kept for the
        // server's own: past that, a connection is closed at once rather than every accept failing.
        connections.limitTotal(to: descriptorLimit - 32 - allowed)
        if allowed < configuration.maxDownloads {
            logger.notice(
                "at most \(allowed) media files streamed at once: the open-file limit allows no more",
                metadata: ["open-file-limit": "\(descriptorLimit)", "max-downloads": "\(configuration.maxDownloads)"])
        }
        let app = Application(
            router: router, server: server,
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                let host =
                    configuration.host == "0.0.0.0" || configuration.host == "::" ? "127.0.0.1" : configuration.host
                let scheme = configuration.scheme
                let bound = host.contains(":") ? "\(scheme)://[\(host)]:\(port)" : "\(scheme)://\(host):\(port)"
                services.listening.withLockedValue { $0 = bound }
                listening(bound)
                logger.notice(
                    "serving \(services.catalog.count) tour(s)",
                    metadata: [
                        "listening": "\(configuration.host):\(port)",
                        "media-base": "\(configuration.publicURL ?? "each request's Host")",
                        "data": "\(configuration.dataDirectory.path)", "dialect": "\(configuration.dialect.rawValue)",
                    ])
            },
            logger: logger
        )
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    app, ReloadOnHangup(catalog: services.catalog, signals: hangups),
                    MemoryReturn(connections: connections, logger: logger),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        do {
            try await group.run()
        } catch let error as IOError {
            throw ServerError(
                .unavailable, "cannot listen on \(configuration.host):\(configuration.port) (\(error.description))")
        } catch is SocketAddressError.UnknownHost {
            throw ServerError(
                .unavailable,
                "cannot listen on \(configuration.host):\(configuration.port) (the host name has no address)")
        } catch let error as SocketAddressError {
            throw ServerError(.unavailable, "cannot listen on \(configuration.host):\(configuration.port) (\(error))")
        }
    }

    /// The routes over the configured tours and data folder as an application that is not
    /// running: for Hummingbird's testing library, which drives its router in-process.
    public static func application(_ configuration: ServerConfiguration, logger: Logger) async throws
        -> some ApplicationProtocol
    {
        let server = try httpServer(configuration, logger: logger)
        let services = try await makeServices(configuration, logger: logger)
        return Application(
            router: makeRouter(services), server: server,
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port)),
            logger: logger)
    }

    /// HTTP/1.1 with the idle timeout and the connection caps (docs/server.md), over TLS when a
    /// certificate is given.
    static func httpServer(
        _ configuration: ServerConfiguration, connections: ConnectionCounts = ConnectionCounts(), logger: Logger? = nil
    ) throws(ServerError) -> HTTPServerBuilder {
        // A request's body must be in within four idle timeouts of its head, and a client whose
        // answers wait on it must take something within four.
        let idle = TimeAmount.milliseconds(Int64(configuration.idleTimeout * 1000))
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionGate(connections, stallLimit: idle * 4, logger: logger)],
            idleTimeout: idle)
        guard let tls = configuration.tls else { return .http1(configuration: http1) }
        let certificate = TerminalText.line(tls.certificate.path)
        let keyFile = TerminalText.line(tls.key.path)
        let (chainBytes, keyBytes) = (try pemFile(tls.certificate), try pemFile(tls.key))
        let chain = (try? NIOSSLCertificate.fromPEMBytes(chainBytes)) ?? []
        guard !chain.isEmpty else { throw ServerError(.usage, "\(certificate): holds no PEM certificate") }
        guard let key = try? NIOSSLPrivateKey(bytes: keyBytes, format: .pem) else {
            throw ServerError(
                .usage, "\(keyFile): holds no PEM private key that can be read (one under a passphrase cannot)")
        }
        var settings = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        // TLS 1.0 and 1.1 are retired (RFC 8996).
        settings.minimumTLSVersion = .tlsv12
        // Made once here, so that a key that is not the certificate's is said before listening.
        do { _ = try NIOSSLContext(configuration: settings) } catch {
            throw ServerError(
                .usage,
                "\(keyFile) does not go with the first certificate in \(certificate) (the server's own comes first, then its chain), or cannot be used with it"
            )
        }
        let tlsSettings = settings
        return HTTPServerBuilder { responder in
            PlainHTTPOnTLSPort(
                base: try TLSChannel(
                    HTTP1Channel(responder: responder, configuration: http1), tlsConfiguration: tlsSettings))
        }
    }

    /// A PEM file's bytes, read as every input file is (a regular file only: a FIFO hung the start).
    static func pemFile(_ url: URL) throws(ServerError) -> [UInt8] {
        do { return Array(try InputFile.contents(of: url.path)) } catch {
            throw ServerError(.usage, TerminalText.line(error.message))
        }
    }

    static func makeServices(_ configuration: ServerConfiguration, logger: Logger) async throws -> ServerServices {
        let database = try ServerDatabase(dataDirectory: configuration.dataDirectory)
        if let exposure = DataDirectory.exposure(configuration.dataDirectory) { logger.warning("\(exposure)") }
        let secrets = try ServerSecrets.load(
            dataDirectory: configuration.dataDirectory, secretFile: configuration.secretFile)
        let catalog = try TourCatalog(
            paths: configuration.tourPaths, versions: TourVersionStore(database: database),
            reloadInterval: configuration.reloadInterval, logger: logger)
        let accounts = AccountStore(database: database)
        let tokens = await TokenIssuer(
            secrets: secrets, accessTTL: configuration.accessTokenTTL,
            refreshTTL: configuration.refreshTokenTTL)
        let hasher = PasswordHasher(cost: configuration.bcryptCost)
        return ServerServices(
            configuration: configuration, catalog: catalog, database: database, accounts: accounts,
            vouchers: VoucherStore(database: database), analytics: AnalyticsStore(database: database), tokens: tokens,
            authenticator: Authenticator(tokens: tokens, accounts: accounts), hasher: hasher,
            signer: MediaSigner(secrets: secrets), media: MediaBudget(limit: configuration.maxDownloads),
            logger: logger,
            decoyHash: try await hasher.hash(UUID().uuidString))
    }

    static func makeRouter(_ services: ServerServices) -> Router<ServerContext> {
        // HEAD answers for every GET, as the live service's framework gives them.
        let router = Router(context: ServerContext.self, options: .autoGenerateHeadEndpoints)
        // Middleware first (it wraps the routes added after it); faults outermost, so they see the
        // final answer, errors included.
        router.add(
            middleware: FaultMiddleware(
                plan: services.configuration.faults, dialect: services.dialect,
                logger: services.logger))
        router.add(middleware: ErrorMiddleware(dialect: services.dialect, logger: services.logger))
        router.add(
            middleware: GuessThrottleMiddleware(
                buckets: GuessBuckets(perMinute: services.configuration.guessesPerMinute), dialect: services.dialect))
        HealthRoutes(services: services).register(on: router)
        AuthRoutes(services: services).register(on: router)
        TourRoutes(services: services).register(on: router)
        MediaRoutes(services: services).register(on: router)
        VoucherRoutes(services: services).register(on: router)
        AnalyticsRoutes(services: services).register(on: router)
        return router
    }
}

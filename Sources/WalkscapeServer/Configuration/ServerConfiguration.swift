import Foundation
import TourModel

/// Everything `walkscape-server` is started with. A value: the command line builds it, the
/// application reads it, tests can build one directly.
public struct ServerConfiguration: Sendable {
    /// Tour folders, or folders whose sub-folders are tour folders.
    public var tourPaths: [URL]
    public var host: String
    /// 0: the kernel picks a free port (printed as the first line of stdout).
    public var port: Int
    /// Users, grants, vouchers, received events, the signing secret.
    public var dataDirectory: URL
    /// The base URL signed into media URLs. Nil: the request's `Host`, as a LAN client reached us.
    public var publicURL: String?
    public var dialect: APIDialect
    /// Lifetime of access tokens, seconds (live: 15 min).
    public var accessTokenTTL: Int
    /// Lifetime of refresh tokens, seconds (live: 7 days).
    public var refreshTokenTTL: Int
    /// Lifetime of signed media URLs, seconds (live: 24 h).
    public var mediaURLTTL: Int
    /// bcrypt's cost; low in tests, where hashing dominates an auth round trip.
    public var bcryptCost: Int
    /// At most one check of the tour folders for changes per this many seconds.
    public var reloadInterval: Double
    /// JSON bodies above this are refused with 413 (the live service keeps Express's 100 kB default).
    public var bodyLimit: Int
    public var faults: FaultPlan
    /// A connection that sends nothing for this long (no request, headers or a body that never
    /// come, a keep-alive left open) is closed: idle sockets must not use up the server's files.
    /// An answer in progress is not, but a media client that takes nothing for four times as long
    /// is given up (MediaFileResponse).
    public var idleTimeout: Double
    /// At most this many media answers at once (lowered to what the open-file limit allows); more
    /// get 503 SlowDown with Retry-After (MediaBudget).
    public var maxDownloads: Int
    public static let defaultMaxDownloads = 512
    /// Logins, registrations and voucher redemptions one client may try a minute, each (0: no
    /// limit).
    public var guessesPerMinute: Int
    /// The signing secret's file when it is not the data folder's (the Debian package keeps it in
    /// /etc/walkscape-server, made at install): read, never made.
    public var secretFile: URL?
    /// HTTPS: the certificate chain and private key (PEM) the server presents; nil for plain HTTP.
    public var tls: (certificate: URL, key: URL)?
    /// `https` when serving TLS, else `http`: the scheme of the base URL printed and of media links.
    public var scheme: String { tls == nil ? "http" : "https" }

    public init(
        tourPaths: [URL], host: String = "127.0.0.1", port: Int = 8080, dataDirectory: URL,
        publicURL: String? = nil, dialect: APIDialect = .live, accessTokenTTL: Int = 900,
        refreshTokenTTL: Int = 7 * 24 * 3600, mediaURLTTL: Int = 24 * 3600, bcryptCost: Int = 10,
        reloadInterval: Double = 1, bodyLimit: Int = 100 * 1024, faults: FaultPlan = FaultPlan(),
        idleTimeout: Double = 30, maxDownloads: Int = defaultMaxDownloads, guessesPerMinute: Int = 60,
        secretFile: URL? = nil, tls: (certificate: URL, key: URL)? = nil
    ) {
        self.tls = tls
        self.maxDownloads = maxDownloads
        self.secretFile = secretFile
        self.idleTimeout = idleTimeout
        self.guessesPerMinute = guessesPerMinute
        self.tourPaths = tourPaths
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.publicURL = publicURL
        self.dialect = dialect
        self.accessTokenTTL = accessTokenTTL
        self.refreshTokenTTL = refreshTokenTTL
        self.mediaURLTTL = mediaURLTTL
        self.bcryptCost = bcryptCost
        self.reloadInterval = reloadInterval
        self.bodyLimit = bodyLimit
        self.faults = faults
    }
}

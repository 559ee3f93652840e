/// What a download did.
public struct InstallReport: Sendable, Hashable {
    /// Files fetched, and the bytes that came over the network for them (a resumed file counts
    /// only what was fetched this time).
    public var filesFetched = 0
    public var bytesReceived: Int64 = 0
    /// Media requests sent, signed links renewed, attempts repeated after a failure.
    public var requests = 0
    public var linkRenewals = 0
    public var retries = 0
    /// Languages now playing a new version.
    public var switchedLanguages: [String] = []

    public init() {}
}

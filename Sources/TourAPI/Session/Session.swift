import Foundation
import TourModel

/// The logged-in session: hands out access tokens, renews them before they expire, and keeps the
/// renewed pair in the credential store.
///
/// However many requests are in flight, one refresh at a time: the first caller that finds the
/// token due starts it, every other caller awaits the same refresh. The service rotates refresh
/// tokens, so two refreshes racing with one refresh token could log the user out.
public actor Session {
    public nonisolated let service: URL
    private let channel: ServiceChannel
    private let store: any CredentialStore
    private let now: @Sendable () -> Date
    private var cached: Credentials?
    private var isLoaded = false
    private var refreshing: Task<Credentials, any Error>?
    /// Refreshes this session has made (one per renewal, however many callers waited for it).
    public private(set) var refreshCount = 0

    public init(channel: ServiceChannel, store: any CredentialStore, now: @escaping @Sendable () -> Date = { Date() }) {
        self.service = channel.service
        self.channel = channel
        self.store = store
        self.now = now
    }

    /// What is saved, whichever service it belongs to.
    public func saved() throws(APIError) -> Credentials? {
        if !isLoaded {
            cached = try store.load()
            isLoaded = true
        }
        return cached
    }

    /// The saved credentials if they belong to this service; those of another are never used.
    public func credentials() throws(APIError) -> Credentials? {
        guard let saved = try saved(), saved.service == ServiceURL.key(service) else { return nil }
        return saved
    }

    /// A token for the next request, renewed first when it is due; nil when not logged in.
    /// Throws `sessionExpired` when the session cannot be renewed any more.
    public func accessToken() async throws(APIError) -> String? {
        guard let current = try credentials() else { return nil }
        if current.accessNeedsRefresh(at: now()) {
            return try await refreshed().tokens.accessToken
        }
        return current.tokens.accessToken
    }

    /// A token to retry with after the service answered 401 to `rejected`: the one another
    /// caller has renewed meanwhile, else a renewal of our own.
    public func accessToken(afterRejecting rejected: String) async throws(APIError) -> String {
        guard let current = try credentials() else { throw APIError.notLoggedIn(service) }
        if current.tokens.accessToken != rejected, !current.accessNeedsRefresh(at: now()) {
            return current.tokens.accessToken
        }
        return try await refreshed().tokens.accessToken
    }

    /// Keeps the tokens of a login or registration for `email`, the address asked for. An answer
    /// for another account (its user's address, or its tokens' subject, not the account asked
    /// for), or whose session is already over, is refused, and what was saved before stays. Saved
    /// with the store held: a renewal in another process neither overwrites it nor is overwritten.
    public func begin(_ auth: AuthSession, email: String) async throws(APIError) {
        if let answered = auth.user?.email, EmailAddress.normalized(answered) != EmailAddress.normalized(email) {
            throw APIError(
                .protocolError,
                "the service logged in \(TerminalText.line(answered)) when \(email.trimmingCharacters(in: .whitespaces)) was asked for; nothing was saved"
            )
        }
        let userID = auth.user?.id.nilIfEmpty
        if let problem = Self.foreignTokens(auth.tokens, userID: userID) {
            throw APIError(.protocolError, "the service's login answer holds \(problem); nothing was saved")
        }
        let credentials = Credentials(
            service: ServiceURL.key(service), email: auth.user?.email ?? email, userID: userID, tokens: auth.tokens)
        if credentials.sessionHasExpired(at: now()) {
            throw APIError(.protocolError, "the service's login answer holds a session already over; nothing was saved")
        }
        let store = self.store
        try await store.exclusively { () throws(APIError) in try store.save(credentials) }
        cached = credentials
        isLoaded = true
    }

    /// Forgets the credentials (there is no logout endpoint: tokens simply stop being used), with
    /// the store held: a renewal under way in another process finishes first, then is forgotten.
    public func end() async throws(APIError) {
        let store = self.store
        try await store.exclusively { () throws(APIError) in try store.remove() }
        cached = nil
        isLoaded = true
    }

    /// What is wrong when `tokens` name an account other than `userID` (their `sub`); nil if not.
    static func foreignTokens(_ tokens: AuthTokens, userID: String?) -> String? {
        guard let userID else { return nil }
        for token in [tokens.accessToken, tokens.refreshToken].compactMap({ $0 }) {
            if let subject = JWTClaims(token: token)?.subject, subject != userID {
                return "the tokens of another account"
            }
        }
        return nil
    }

    private func refreshed() async throws(APIError) -> Credentials {
        let task: Task<Credentials, any Error>
        if let running = refreshing {
            task = running
        } else {
            task = Task { try await self.refresh() }
            refreshing = task
        }
        do {
            let renewed = try await task.value
            if refreshing == task { refreshing = nil }
            return renewed
        } catch {
            if refreshing == task { refreshing = nil }
            throw error as? APIError ?? APIError(.local, "the session could not be renewed")
        }
    }

    private func refresh() async throws(APIError) -> Credentials {
        try await store.exclusively { () async throws(APIError) -> Credentials in try await self.renew() }
    }

    /// Renews the pair; called with the store held, so no other process renews at the same time.
    private func renew() async throws(APIError) -> Credentials {
        guard var current = try credentials() else { throw APIError.notLoggedIn(service) }
        // What is saved now rules: a logout made meanwhile is not undone, a login made meanwhile
        // is not overwritten, and a pair another walkscape process renewed while we waited for the
        // store is used rather than a refresh token that has been rotated away.
        guard let disk = try store.load(), disk.service == current.service else {
            cached = nil
            throw APIError.notLoggedIn(service)
        }
        if disk != current {
            cached = disk
            if !disk.accessNeedsRefresh(at: now()) { return disk }
            current = disk
        }
        guard let refreshToken = current.tokens.refreshToken, !current.sessionHasExpired(at: now()) else {
            throw APIError.sessionExpired
        }
        let request = channel.request(.post, "/auth/refresh", json: ServiceChannel.json(["refreshToken": refreshToken]))
        let answer = try await channel.perform(request, idempotent: false)
        switch answer.status {
        case 200, 201:
            var tokens = try channel.decode(AuthTokens.self, from: answer)
            // Servers that do not rotate send no new refresh token: the old one stays good.
            if tokens.refreshToken == nil { tokens.refreshToken = refreshToken }
            if Self.foreignTokens(tokens, userID: current.userID) != nil {
                throw APIError(
                    .protocolError,
                    "the service renewed the session with another account's tokens; they were not kept (walkscape login to start again)"
                )
            }
            var renewed = current
            renewed.tokens = tokens
            try store.save(renewed)
            cached = renewed
            refreshCount += 1
            return renewed
        case 400, 401, 403:
            throw APIError.sessionExpired
        default:
            throw answer.error(now: now())
        }
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}

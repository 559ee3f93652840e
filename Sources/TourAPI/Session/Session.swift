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

    /// Keeps the tokens of a login or registration.
    public func begin(_ auth: AuthSession, email: String) throws(APIError) {
        let credentials = Credentials(
            service: ServiceURL.key(service), email: auth.user?.email ?? email,
            userID: auth.user?.id.nilIfEmpty, tokens: auth.tokens)
        try store.save(credentials)
        cached = credentials
        isLoaded = true
    }

    /// Forgets the credentials (there is no logout endpoint: tokens simply stop being used).
    public func end() throws(APIError) {
        try store.remove()
        cached = nil
        isLoaded = true
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
        guard let current = try credentials() else { throw APIError.notLoggedIn(service) }
        // Another walkscape process may have renewed the pair while we waited for the store: use
        // its pair rather than spend a refresh token that has been rotated away.
        if let disk = try store.load(), disk.service == current.service,
            disk.tokens.accessToken != current.tokens.accessToken, !disk.accessNeedsRefresh(at: now())
        {
            cached = disk
            return disk
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

/// Where the session's credentials live between runs. The API client knows nothing of disks: the
/// command line provides the store (a file with mode 0600 in the config folder).
public protocol CredentialStore: Sendable {
    /// The saved credentials, or nil when there are none.
    func load() throws(APIError) -> Credentials?
    /// Replaces the saved credentials as one step: never a moment with half a file.
    func save(_ credentials: Credentials) throws(APIError)
    /// Forgets them; nothing saved is not an error.
    func remove() throws(APIError)
    /// Runs `body` while no other process renews the same credentials. The service rotates refresh
    /// tokens: two processes renewing with one refresh token would leave one of them logged out.
    func exclusively<T: Sendable>(_ body: @Sendable () async throws(APIError) -> T) async throws(APIError) -> T
}

import Foundation
import TourModel

/// The Sonic Walkscape API (docs/api-contract.md) as typed calls. Answers are decoded in both
/// dialects through TourModel; requests are sent in the live shapes only.
///
/// Each endpoint lives in an extension by concern (auth, tours, vouchers, analytics, health,
/// media); this file holds what they share: authentication, the one renewal and retry after a 401,
/// and the error mapping.
public struct APIClient: Sendable {
    public private(set) var channel: ServiceChannel
    public let session: Session

    public init(channel: ServiceChannel, credentials: any CredentialStore) {
        self.channel = channel
        self.session = Session(
            channel: channel, store: credentials, now: { [timer = channel.executor.timer] in timer.now() })
    }

    public var service: URL { channel.service }

    /// What to do when a request that may go anonymously (`Authentication.optional`) finds the
    /// session can no longer be renewed: nil, it fails ("log in again"); else this is called and
    /// the request goes anonymously (the caller says so: tours the login unlocked show as locked).
    public var onSessionExpired: (@Sendable () -> Void)?

    /// The same client for the few calls a long download depends on (`RetryPolicy.persistent`).
    public var persistent: APIClient { retrying(.persistent(channel.executor.policy)) }

    /// The same client, with the same session, retrying under `policy`.
    public func retrying(_ policy: RetryPolicy) -> APIClient {
        var copy = self
        copy.channel.executor.policy = policy
        return copy
    }

    /// Whether a request carries the session's bearer token.
    public enum Authentication: Sendable {
        /// Never (login, register, health).
        case none
        /// When logged in; a session that cannot be renewed is an error, since the answer would
        /// silently be the anonymous one (locked tours shown as locked), unless the caller takes
        /// that on (`onSessionExpired`).
        case optional
        /// When logged in and the session can be renewed; anonymous otherwise.
        case bestEffort
        /// Always: not logged in is an error before anything is sent.
        case required
    }

    /// Sends one API request and returns its successful answer.
    ///
    /// The token is renewed *before* it expires (public routes ignore an expired token); a 401
    /// nonetheless gets one renewal and one more try, then "log in again". A failed answer is
    /// named by `explain` when it has a better word than the contract's status table.
    public func call(
        _ method: HTTPRequest.Method, _ path: String, query: [URLQueryItem] = [], json body: Data? = nil,
        auth: Authentication, idempotent: Bool, timeout: Duration? = nil, ifCutOff outcome: String? = nil,
        explain: (ServiceAnswer) -> APIError? = { _ in nil }
    ) async throws(APIError) -> ServiceAnswer {
        // `outcome`: what to say when this request (not a token renewal before it) is cut off once
        // it may have reached the service (`APIError.mayHaveGoneThrough`).
        func perform(_ token: String?) async throws(APIError) -> ServiceAnswer {
            do {
                return try await channel.perform(
                    channel.request(method, path, query: query, json: body, token: token, timeout: timeout),
                    idempotent: idempotent)
            } catch {
                throw outcome.map { error.mayHaveGoneThrough($0) } ?? error
            }
        }
        var token: String?
        switch auth {
        case .none:
            token = nil
        case .optional:
            do { token = try await session.accessToken() } catch  where error.kind == .sessionExpired {
                guard let onSessionExpired else { throw error }
                onSessionExpired()
                token = nil
            }
        case .bestEffort:
            do { token = try await session.accessToken() } catch  where error.kind == .sessionExpired { token = nil }
        case .required:
            token = try await session.accessToken()
            if token == nil { throw try await notLoggedIn() }
        }
        var answer = try await perform(token)
        if answer.status == 401, let sent = token {
            // A 401 is the server saying it did not act, so even a voucher may be sent again.
            let renewed = try await session.accessToken(afterRejecting: sent)
            answer = try await perform(renewed)
            if answer.status == 401 { throw APIError.sessionExpired }
        }
        if answer.isSuccess { return answer }
        if let explained = explain(answer) { throw explained }
        if answer.status == 401, auth == .required || token != nil { throw APIError.sessionExpired }
        let failure = answer.error(now: channel.executor.timer.now())
        throw outcome.map { failure.mayHaveGoneThrough($0) } ?? failure
    }

    private func notLoggedIn() async throws(APIError) -> APIError {
        if let other = try await session.saved()?.service, other != ServiceURL.key(service) {
            return APIError(
                .notLoggedIn,
                "not logged in to \(ServiceURL.origin(service)) (the saved login is for \(other))", remedy: .logIn)
        }
        return APIError.notLoggedIn(service)
    }
}

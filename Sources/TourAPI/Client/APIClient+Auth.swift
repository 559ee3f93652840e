import Foundation
import TourModel

extension APIClient {
    /// `POST /auth/register`: creates the account and keeps its session. Never re-sent once it may
    /// have reached the server.
    public func register(_ registration: Registration) async throws(APIError) -> AuthSession {
        let answer = try await call(
            .post, "/auth/register", json: ServiceChannel.json(registration), auth: .none, idempotent: false,
            ifCutOff: "the account for \(registration.email) may have been made all the same: walkscape login tells"
        ) { answer in
            switch answer.status {
            case 409:
                APIError(
                    .alreadyExists, "an account for \(registration.email) exists already", status: 409,
                    remedy: .logIn)
            case 400:
                APIError(
                    .rejected, "registration refused: \(answer.errorBody?.summary ?? "invalid details")",
                    status: 400, serverMessages: answer.errorBody?.messages ?? [])
            default: nil
            }
        }
        let auth = try channel.decode(AuthSession.self, from: answer)
        try await session.begin(auth, email: registration.email)
        return auth
    }

    /// `POST /auth/login`: keeps the session. Never re-sent once it may have reached the server.
    public func login(email: String, password: String) async throws(APIError) -> AuthSession {
        let body = ServiceChannel.json(["email": email, "password": password])
        let answer = try await call(.post, "/auth/login", json: body, auth: .none, idempotent: false) { answer in
            switch answer.status {
            case 401: APIError(.invalidCredentials, "wrong email or password", status: 401)
            case 400:
                APIError(
                    .rejected, "login refused: \(answer.errorBody?.summary ?? "invalid details")", status: 400,
                    serverMessages: answer.errorBody?.messages ?? [])
            default: nil
            }
        }
        let auth = try channel.decode(AuthSession.self, from: answer)
        try await session.begin(auth, email: email)
        return auth
    }

    /// `GET /auth/me`.
    public func me() async throws(APIError) -> UserProfile {
        let answer = try await call(.get, "/auth/me", auth: .required, idempotent: true)
        return try channel.decode(UserProfile.self, from: answer)
    }

    /// Forgets the local credentials; the service has no logout endpoint.
    public func logout() async throws(APIError) {
        try await session.end()
    }
}

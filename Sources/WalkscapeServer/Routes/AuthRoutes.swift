import Foundation
import HTTPTypes
import Hummingbird
import JWTKit
import Logging
import TourModel

/// `/auth/register`, `/auth/login`, `/auth/refresh`, `/auth/me`.
struct AuthRoutes: Sendable {
    let services: ServerServices

    func register(on router: Router<ServerContext>) {
        router.post("/auth/register") { request, _ in try await register(request) }
        router.post("/auth/login") { request, _ in try await login(request) }
        router.post("/auth/refresh") { request, _ in try await refresh(request) }
        router.get("/auth/me") { request, _ in
            let user = try await services.authenticator.requireUser(request)
            return services.json(user.profile)
        }
    }

    func register(_ request: Request) async throws -> Response {
        let body = try await services.body(of: request)
        var v = BodyValidator()
        v.forbidUnknownKeys(body, allowed: ["email", "password", "name", "preferredLanguage", "mailingListOptIn"])
        let email = v.email(body, "email")
        let password = v.string(body, "password", minLength: 8)
        if let password, let problem = PasswordHasher.problem(password) { v.fail(problem) }
        let name = v.optionalString(body, "name")
        let language = v.optionalString(body, "preferredLanguage")
        let optIn = v.optionalBool(body, "mailingListOptIn")
        guard v.messages.isEmpty, let email, let password else { throw APIError.validation(v.messages) }
        let taken = APIError(.conflict, "User with this email already exists")
        // Checked first to spare a hash; the unique index settles races between registrations.
        if try services.accounts.exists(email: email) { throw taken }
        let hash = try await services.hasher.hash(password)
        let user: UserRecord
        do {
            user = try services.accounts.create(
                email: email, passwordHash: hash, name: name,
                preferredLanguage: language ?? "en", mailingListOptIn: optIn ?? false)
        } catch AccountStore.Failure.emailTaken {
            throw taken
        }
        let tokens = try await issue(for: user)
        return services.json(AuthSession(user: user.profile, tokens: tokens), status: .created)
    }

    func login(_ request: Request) async throws -> Response {
        let body = try await services.body(of: request)
        var v = BodyValidator()
        v.forbidUnknownKeys(body, allowed: ["email", "password"])
        let email = v.email(body, "email")
        let password = v.requiredString(body, "password")
        guard v.messages.isEmpty, let email, let password else { throw APIError.validation(v.messages) }
        let user = try services.accounts.user(email: email)
        let matches = try await services.hasher.verify(password, hash: user?.passwordHash ?? services.decoyHash)
        guard let user, matches else { throw APIError(.unauthorized, "Invalid credentials") }
        try services.accounts.recordLogin()
        let tokens = try await issue(for: user)
        return services.json(AuthSession(user: user.profile, tokens: tokens), status: .created)
    }

    func refresh(_ request: Request) async throws -> Response {
        let body = try await services.body(of: request)
        var v = BodyValidator()
        v.forbidUnknownKeys(body, allowed: ["refreshToken"])
        let token = v.requiredString(body, "refreshToken")
        guard v.messages.isEmpty, let token else { throw APIError.validation(v.messages) }
        let invalid = APIError(.unauthorized, "Invalid refresh token")
        guard let claims = await services.tokens.verifyRefresh(token) else { throw invalid }
        // Rotation: each refresh token works once; the answer carries its successor.
        guard try services.accounts.consumeRefreshToken(id: claims.jti.value, userID: claims.sub.value),
            let user = try services.accounts.user(id: claims.sub.value)
        else { throw invalid }
        services.logger.info("token refreshed", metadata: ["user": "\(user.email)"])
        return services.json(try await issue(for: user), status: .created)
    }

    private func issue(for user: UserRecord) async throws -> AuthTokens {
        let issued = try await services.tokens.issue(userID: user.id, email: user.email)
        try services.accounts.recordRefreshToken(
            id: issued.refreshID, userID: user.id, issuedAt: issued.issuedAt,
            expiresAt: issued.refreshExpiresAt)
        return issued.tokens
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import JWTKit

/// Who is asking. Public routes treat a missing, malformed, tampered or expired bearer token alike:
/// anonymous (so a protected tour then answers 403, exactly as live). Protected routes answer 401.
struct Authenticator: Sendable {
    let tokens: TokenIssuer
    let accounts: AccountStore

    func optionalUser(_ request: Request) async -> UserRecord? {
        guard let token = Self.bearer(request), let claims = await tokens.verifyAccess(token) else { return nil }
        return try? accounts.user(id: claims.sub.value)
    }

    func requireUser(_ request: Request) async throws -> UserRecord {
        guard let user = await optionalUser(request) else { throw APIError.unauthorized }
        return user
    }

    static func bearer(_ request: Request) -> String? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}

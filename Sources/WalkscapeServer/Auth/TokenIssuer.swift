import Foundation
import JWTKit
import TourModel

/// Issues and checks HS256 JWTs: access tokens (`--token-ttl`, live: 15 min) and refresh tokens
/// (`--refresh-ttl`, live: 7 days), each kind with its own key.
struct TokenIssuer: Sendable {
    /// A freshly issued pair and what the refresh token's rotation needs to remember.
    struct Issued: Sendable {
        var tokens: AuthTokens
        var refreshID: String
        var issuedAt: Date
        var refreshExpiresAt: Date
    }

    let accessKeys: JWTKeyCollection
    let refreshKeys: JWTKeyCollection
    let accessTTL: Int
    let refreshTTL: Int

    init(secrets: ServerSecrets, accessTTL: Int, refreshTTL: Int) async {
        accessKeys = JWTKeyCollection()
        await accessKeys.add(hmac: HMACKey(key: secrets.accessTokenKey), digestAlgorithm: .sha256)
        refreshKeys = JWTKeyCollection()
        await refreshKeys.add(hmac: HMACKey(key: secrets.refreshTokenKey), digestAlgorithm: .sha256)
        self.accessTTL = accessTTL
        self.refreshTTL = refreshTTL
    }

    func issue(userID: String, email: String, now: Date = Date()) async throws -> Issued {
        // Whole seconds, as JWT's NumericDate is written by the service.
        let iat = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let access = AccessClaims(
            sub: .init(value: userID), email: email, iat: .init(value: iat),
            exp: .init(value: iat.addingTimeInterval(Double(accessTTL))))
        let refreshID = UUID().uuidString.lowercased()
        let refreshExpiry = iat.addingTimeInterval(Double(refreshTTL))
        let refresh = RefreshClaims(
            sub: .init(value: userID), email: email, iat: .init(value: iat),
            exp: .init(value: refreshExpiry), jti: .init(value: refreshID))
        let accessToken = try await accessKeys.sign(access)
        let refreshToken = try await refreshKeys.sign(refresh)
        return Issued(
            tokens: AuthTokens(accessToken: accessToken, refreshToken: refreshToken),
            refreshID: refreshID, issuedAt: iat, refreshExpiresAt: refreshExpiry)
    }

    /// The claims of a valid, unexpired access token; nil for anything else.
    func verifyAccess(_ token: String) async -> AccessClaims? {
        try? await accessKeys.verify(token, as: AccessClaims.self)
    }

    func verifyRefresh(_ token: String) async -> RefreshClaims? {
        try? await refreshKeys.verify(token, as: RefreshClaims.self)
    }
}

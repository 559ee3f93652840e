import Foundation
import TourModel

/// What a login leaves behind: the token pair, and the service it belongs to, so tokens are never
/// sent to a service that did not issue them.
public struct Credentials: Sendable, Hashable, Codable {
    /// `ServiceURL.key` of the issuing service.
    public var service: String
    public var email: String?
    /// The user's id as the service gave it (for analytics events, which only carry service ids).
    public var userID: String?
    public var tokens: AuthTokens

    public init(service: String, email: String?, userID: String?, tokens: AuthTokens) {
        self.service = service
        self.email = email
        self.userID = userID
        self.tokens = tokens
    }

    enum CodingKeys: String, CodingKey {
        case service = "apiUrl"
        case email
        case userID = "userId"
        case tokens
    }

    /// When the session ends unless renewed: the refresh token's `exp` (the access token's when
    /// there is no refresh token).
    public var sessionExpiresAt: Date? {
        tokens.refreshToken.flatMap { JWTClaims(token: $0)?.expiresAt } ?? tokens.accessExpiresAt
    }

    /// True once the session cannot be renewed any more.
    public func sessionHasExpired(at now: Date) -> Bool {
        guard let end = sessionExpiresAt else { return false }
        return end <= now
    }

    /// True when the access token should be renewed before use: public routes ignore an expired
    /// token (a protected tour then answers 403, not 401), so waiting for a 401 is too late. The
    /// margin is a quarter of the token's lifetime, at most a minute, so short-lived tokens are
    /// not refreshed on every request.
    public func accessNeedsRefresh(at now: Date) -> Bool {
        guard let expiry = tokens.accessExpiresAt else { return false }
        var margin: TimeInterval = 60
        if let issued = JWTClaims(token: tokens.accessToken)?.issuedAt {
            margin = min(margin, max(0, expiry.timeIntervalSince(issued)) / 4)
        }
        return tokens.needsRefresh(at: now, margin: margin)
    }
}

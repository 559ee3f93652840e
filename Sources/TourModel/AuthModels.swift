import Foundation

/// An access/refresh token pair. Live: `{accessToken, refreshToken}`; guide/older servers:
/// `access_token`/`refresh_token`/`expires_in`, at the top level or under `tokens`.
public struct AuthTokens: Sendable, Hashable, Codable, APIEncodable {
    public var accessToken: String
    public var refreshToken: String?
    /// When the access token stops working: from the token's `exp`, else `expires_in`.
    public var accessExpiresAt: Date?

    public init(accessToken: String, refreshToken: String?, accessExpiresAt: Date? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.accessExpiresAt = accessExpiresAt ?? JWTClaims(token: accessToken)?.expiresAt
    }

    enum CodingKeys: String, CodingKey { case accessToken, refreshToken, accessExpiresAt }

    public init(from decoder: any Decoder) throws {
        let top = try decoder.container(keyedBy: AnyKey.self)
        let c = try top.nested("tokens") ?? top
        accessToken = try Self.checked(c.require(String.self, "accessToken", "access_token", "token"), "accessToken", c)
        refreshToken = try c.first(String.self, "refreshToken", "refresh_token").map {
            try Self.checked($0, "refreshToken", c)
        }
        if let exp = JWTClaims(token: accessToken)?.expiresAt {
            accessExpiresAt = exp
        } else if let seconds = try c.number("expires_in", "expiresIn") {
            accessExpiresAt = Date().addingTimeInterval(seconds)
        } else {
            accessExpiresAt = try c.first(String.self, "accessExpiresAt").flatMap(ISO8601.parse)
        }
    }

    /// `token` if an `Authorization` header can carry it: 1 to `TourLimits.tokenLength` visible
    /// ASCII characters (no space, no control character).
    static func checked(_ token: String, _ name: String, _ c: KeyedDecodingContainer<AnyKey>) throws -> String {
        let utf8 = token.utf8
        guard !utf8.isEmpty, utf8.count <= TourLimits.tokenLength, utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            let what =
                utf8.count > TourLimits.tokenLength
                ? "is \(utf8.count) bytes, more than \(TourLimits.tokenLength)"
                : "is not one a request can carry (empty, or a space or control character in it)"
            throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription: "the \(name) \(what)"))
        }
        return token
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(accessToken, forKey: .accessToken)
        try c.encodeIfPresent(refreshToken, forKey: .refreshToken)
        try c.encodeIfPresent(accessExpiresAt.map(ISO8601.format), forKey: .accessExpiresAt)
    }

    /// The wire form (`POST /auth/refresh`'s answer, `tokens` of register/login): the pair only.
    /// `encode(to:)` above is the stored form, which also keeps the expiry.
    public func encode(to encoder: any Encoder, dialect: APIDialect) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.put(accessToken, "accessToken")
        try c.putIfPresent(refreshToken, "refreshToken")
    }

    /// True when the access token should be refreshed now: public routes silently ignore an expired
    /// token (and answer 403 on protected ones), so waiting for a 401 is too late.
    public func needsRefresh(at now: Date, margin: TimeInterval = 60) -> Bool {
        guard let accessExpiresAt else { return false }
        return now.addingTimeInterval(margin) >= accessExpiresAt
    }
}

/// The claims walkscape reads from a JWT payload (never verified client-side: the server does).
public struct JWTClaims: Sendable, Hashable {
    public var subject: String?
    public var email: String?
    public var issuedAt: Date?
    public var expiresAt: Date?

    public init?(token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var b64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b64.count % 4 != 0 { b64 += "=" }
        guard let data = Data(base64Encoded: b64),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        subject = object["sub"] as? String
        email = object["email"] as? String
        issuedAt = Self.date(object["iat"])
        expiresAt = Self.date(object["exp"])
    }

    /// Seconds since 1970 as a date, when the calendar shown to people holds it (up to the end of
    /// the year 9999); else unknown.
    static func date(_ value: Any?) -> Date? {
        guard let seconds = (value as? NSNumber)?.doubleValue, CivilDate.shownSeconds.contains(seconds) else {
            return nil
        }
        return Date(timeIntervalSince1970: seconds)
    }
}

/// `GET /auth/me`, and the `user` of register/login answers.
public struct UserProfile: Sendable, Hashable, Decodable, APIEncodable {
    public var id: String
    public var email: String
    public var name: String?
    public var preferredLanguage: String?
    public var mailingListOptIn: Bool?
    public var createdAt: Date?
    public var updatedAt: Date?

    public init(
        id: String, email: String, name: String? = nil, preferredLanguage: String? = nil,
        mailingListOptIn: Bool? = nil, createdAt: Date? = nil, updatedAt: Date? = nil
    ) {
        self.id = id
        self.email = email
        self.name = name
        self.preferredLanguage = preferredLanguage
        self.mailingListOptIn = mailingListOptIn
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        id = try c.identifier("id") ?? ""
        email = try c.require(String.self, "email")
        name = try c.first(String.self, "name")
        preferredLanguage = try c.first(String.self, "preferredLanguage", "preferred_language")
        mailingListOptIn = try c.first(Bool.self, "mailingListOptIn")
        createdAt = try c.first(String.self, "createdAt").flatMap(ISO8601.parse)
        updatedAt = try c.first(String.self, "updatedAt").flatMap(ISO8601.parse)
    }

    /// `{id, email, name, preferredLanguage, mailingListOptIn, createdAt, updatedAt}`, unset ones as null.
    public func encode(to encoder: any Encoder, dialect: APIDialect) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.put(id, "id")
        try c.put(email, "email")
        try c.putOrNull(name, "name")
        try c.putOrNull(preferredLanguage, "preferredLanguage")
        try c.putOrNull(mailingListOptIn, "mailingListOptIn")
        try c.putOrNull(createdAt.map(ISO8601.format), "createdAt")
        try c.putOrNull(updatedAt.map(ISO8601.format), "updatedAt")
    }
}

/// The answer of `POST /auth/register` and `POST /auth/login`.
public struct AuthSession: Sendable, Hashable, Decodable, APIEncodable {
    public var user: UserProfile?
    public var tokens: AuthTokens

    public init(user: UserProfile?, tokens: AuthTokens) {
        self.user = user
        self.tokens = tokens
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        user = try c.first(UserProfile.self, "user")
        tokens = try AuthTokens(from: decoder)
    }
}

extension AuthSession {
    /// `{user, tokens: {accessToken, refreshToken}}`, in both dialects (the guide shows the same).
    public func encode(to encoder: any Encoder, dialect: APIDialect) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        if let user { try c.put(user, "user", dialect: dialect) }
        try c.put(tokens, "tokens", dialect: dialect)
    }
}

/// The body of `POST /auth/register`, in the live shape: only these keys (the service rejects any
/// other), absent optionals left out.
public struct Registration: Sendable, Hashable, Encodable {
    public var email: String
    public var password: String
    public var name: String?
    public var preferredLanguage: String?
    public var mailingListOptIn: Bool?

    public init(
        email: String, password: String, name: String? = nil, preferredLanguage: String? = nil,
        mailingListOptIn: Bool? = nil
    ) {
        self.email = email
        self.password = password
        self.name = name
        self.preferredLanguage = preferredLanguage
        self.mailingListOptIn = mailingListOptIn
    }
}

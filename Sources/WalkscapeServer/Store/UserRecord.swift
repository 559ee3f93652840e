import Foundation
import GRDB
import TourModel

/// A registered walker. The email is stored lower-cased and unique.
public struct UserRecord: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "user"

    public var id: String
    public var email: String
    public var passwordHash: String
    public var name: String?
    public var preferredLanguage: String
    public var mailingListOptIn: Bool
    public var createdAt: Date
    public var updatedAt: Date

    /// What `/auth/me` shows (never the hash).
    public var profile: UserProfile {
        UserProfile(
            id: id, email: email, name: name, preferredLanguage: preferredLanguage,
            mailingListOptIn: mailingListOptIn, createdAt: createdAt, updatedAt: updatedAt)
    }
}

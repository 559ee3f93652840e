import Foundation

/// One file to fetch: a file identity missing from the store, with every place the tour uses it
/// (the same image for two languages is one transfer).
struct Transfer: Sendable {
    var identity: FileIdentity
    var references: [FileReference]
    /// The URL from the manifest, and when that manifest was fetched.
    var url: String
    var obtainedAt: Date
    var expiresAt: Date?
    /// How messages name it: "narration of point 2 (Piazza) in 'it' (02.mp3)".
    var label: String

    /// Whether the file is a point's narration (somewhere it is used).
    var isNarration: Bool { references.contains { $0.role == .audio } }
}

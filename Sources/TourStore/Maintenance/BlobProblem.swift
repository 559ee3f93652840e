/// A blob that does not hold what its name says, and the installed tours that need it.
public struct BlobProblem: Sendable, Hashable {
    public enum Issue: Sendable, Hashable {
        case missing
        /// Its size is not the size it was stored with.
        case wrongSize(Int64)
        /// Its bytes hash to something else.
        case wrongHash(String)
    }

    public var sha256: String
    public var size: Int64
    public var issue: Issue
    /// "slug (language): narration of point 2 (...)" for each installed file it holds.
    public var usedBy: [String]
    /// The installed tours (ids) and languages a repair must download again.
    public var installations: [TourLanguage]

    public var description: String {
        let what: String
        switch issue {
        case .missing: what = "missing"
        case .wrongSize(let actual): what = "\(actual) bytes instead of \(size)"
        case .wrongHash: what = "damaged (its bytes no longer match its SHA-256)"
        }
        return "\(sha256.prefix(12)): \(what)" + (usedBy.isEmpty ? "" : "; used by \(usedBy.joined(separator: "; "))")
    }
}

import TourModel

/// Where a file sits in a tour: which point, what for, which language. After a signed URL expires
/// the same file is found again in a fresh manifest by this, never by its URL.
public struct FileReference: Sendable, Hashable {
    public var role: FileRole
    public var pointID: String?
    /// The manifest's language (the version the file belongs to).
    public var language: String
    /// The file's own language, when the manifest says (subtitles).
    public var fileLanguage: String?

    /// The file this reference names in `manifest`, if it is still there.
    func find(in manifest: TourManifest) -> MediaFile? {
        switch role {
        case .audio: manifest.audio.first { $0.pointID == pointID }
        case .image: manifest.images.first { $0.pointID == pointID }
        case .subtitles:
            manifest.subtitles.first { $0.pointID == pointID && $0.language == fileLanguage }
                ?? manifest.subtitles.first { $0.pointID == pointID }
        }
    }

    /// "narration of point 2 (it)".
    func label(points: [TourPoint]) -> String {
        let point = pointID.flatMap { id in points.first { $0.id == id } }
        let which = point.map { "point \($0.order) (\($0.title))" } ?? pointID.map { "point \($0)" } ?? "the tour"
        return "\(role.noun) of \(which) in '\(language)'"
    }
}

/// What a file of a tour is for.
public enum FileRole: String, Sendable, Hashable, Codable, CaseIterable {
    case audio
    case subtitles
    case image

    /// How a message names it: "narration", "subtitles", "image".
    public var noun: String {
        switch self {
        case .audio: "narration"
        case .subtitles: "subtitles"
        case .image: "image"
        }
    }
}

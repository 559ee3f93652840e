import Foundation

/// One tour in one language, resolved to everything a walk needs: ordered points, their texts,
/// and local media files. The CLI builds it from a tour folder or from the content store; the
/// walk core and the previews consume only this.
public struct PlayableTour: Sendable, Hashable {
    public var id: String
    public var slug: String
    public var language: String
    public var title: String
    public var description: String
    public var completionMessage: String?
    /// Ordered by `order`, ascending.
    public var points: [PlayablePoint]
    /// The route as drawn by the author, if any.
    public var route: [Coordinate]

    public init(
        id: String, slug: String, language: String, title: String, description: String = "",
        completionMessage: String? = nil, points: [PlayablePoint], route: [Coordinate] = []
    ) {
        self.id = id
        self.slug = slug
        self.language = language
        self.title = title
        self.description = description
        self.completionMessage = completionMessage
        self.points = points.sorted { $0.order < $1.order }
        self.route = route
    }
}

/// A point of a `PlayableTour`.
public struct PlayablePoint: Sendable, Hashable, Identifiable {
    public var id: String
    public var order: Int
    public var coordinate: Coordinate
    public var triggerRadiusMeters: Double
    public var title: String
    public var text: String
    /// Local narration file, if the point has audio in this language.
    public var audio: URL?
    /// Local SRT file timed to `audio`.
    public var subtitles: URL?
    public var image: URL?
    /// The narration's measured loudness, where it is known: playback levels it to the walk's
    /// target (docs/loudness.md).
    public var loudness: Loudness?

    public init(
        id: String, order: Int, coordinate: Coordinate, triggerRadiusMeters: Double,
        title: String, text: String = "", audio: URL? = nil, subtitles: URL? = nil, image: URL? = nil
    ) {
        self.id = id
        self.order = order
        self.coordinate = coordinate
        self.triggerRadiusMeters = triggerRadiusMeters
        self.title = title
        self.text = text
        self.audio = audio
        self.subtitles = subtitles
        self.image = image
    }
}

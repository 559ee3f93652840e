/// One installed language of one tour.
public struct TourLanguage: Sendable, Hashable, Comparable {
    public var tourID: String
    public var language: String

    public init(tourID: String, language: String) {
        self.tourID = tourID
        self.language = language
    }

    public static func < (a: TourLanguage, b: TourLanguage) -> Bool {
        (a.tourID, a.language) < (b.tourID, b.language)
    }
}

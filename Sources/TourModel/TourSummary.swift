import Foundation

/// A tour as `GET /tours` lists it. Decodes the live shape (titles per language at the top) and the
/// guide's (`versions: [{language, title, ...}]`).
public struct TourSummary: Sendable, Hashable, Decodable, APIEncodable {
    public var id: String
    public var slug: String
    public var title: LocalizedText
    public var descriptionPreview: LocalizedText
    public var completionMessage: LocalizedText
    public var busInfo: LocalizedText
    public var city: String?
    public var durationMinutes: Double?
    public var distanceKm: Double?
    public var difficulty: String?
    /// Languages with a published version. Empty: nothing is published, and lists hide the tour.
    public var languages: [String]
    public var isProtected: Bool
    /// Only known when the request was authenticated.
    public var hasAccess: Bool?
    public var imageURL: String?
    public var coverTrailerURL: String?
    public var route: [Coordinate]

    public init(
        id: String, slug: String, title: LocalizedText, descriptionPreview: LocalizedText = [:],
        completionMessage: LocalizedText = [:], busInfo: LocalizedText = [:], city: String? = nil,
        durationMinutes: Double? = nil, distanceKm: Double? = nil, difficulty: String? = nil,
        languages: [String], isProtected: Bool = false, hasAccess: Bool? = nil, imageURL: String? = nil,
        coverTrailerURL: String? = nil, route: [Coordinate] = []
    ) {
        self.id = id
        self.slug = slug
        self.title = title
        self.descriptionPreview = descriptionPreview
        self.completionMessage = completionMessage
        self.busInfo = busInfo
        self.city = city
        self.durationMinutes = durationMinutes
        self.distanceKm = distanceKm
        self.difficulty = difficulty
        self.languages = languages
        self.isProtected = isProtected
        self.hasAccess = hasAccess
        self.imageURL = imageURL
        self.coverTrailerURL = coverTrailerURL
        self.route = route
    }

    /// False for tours with nothing published, which the service still lists.
    public var isPublished: Bool { !languages.isEmpty }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        id = try c.requireIdentifier("id")
        slug = try c.slug() ?? id
        isProtected = try c.first(Bool.self, "isProtected", "is_protected") ?? false
        hasAccess = try c.first(Bool.self, "hasAccess", "has_access")
        if let versions = try c.first([GuideVersion].self, "versions") {
            // Guide dialect: one entry per published language.
            title = Dictionary(versions.map { ($0.language, $0.title ?? "") }, uniquingKeysWith: { a, _ in a })
            descriptionPreview = Dictionary(
                versions.compactMap { v in v.description.map { (v.language, $0) } },
                uniquingKeysWith: { a, _ in a })
            completionMessage = [:]
            busInfo = [:]
            languages = versions.map(\.language)
            city = versions.first?.city
            durationMinutes = versions.first?.durationMinutes
            distanceKm = versions.first?.distanceKm
            difficulty = nil
            imageURL = versions.first?.coverImageURL
            coverTrailerURL = nil
            route = []
        } else {
            title = try c.localized("title")
            descriptionPreview = try c.localized("descriptionPreview", "description")
            completionMessage = try c.localized("completionMessage")
            busInfo = try c.localized("busInfo")
            languages = try c.first([String].self, "languages") ?? []
            city = try c.first(String.self, "city")
            durationMinutes = try c.number("durationMinutes", within: TourLimits.durationMinutes)
            distanceKm = try c.number("distanceKm", within: TourLimits.distanceKm)
            difficulty = try c.first(String.self, "difficulty")
            imageURL = try c.first(String.self, "imageUrl", "coverImageUrl")
            coverTrailerURL = try c.first(String.self, "coverTrailerUrl")
            route = try c.route("routePolyline")
        }
    }
}

extension TourSummary {
    public func encode(to encoder: any Encoder, dialect: APIDialect) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.put(id, "id")
        try c.put(slug, "slug")
        switch dialect {
        case .live:
            try c.put(title, "title")
            try c.put(descriptionPreview, "descriptionPreview")
            // Absent when no language has one, as live (not null).
            try c.putIfPresent(completionMessage.isEmpty ? nil : completionMessage, "completionMessage")
            try c.putIfPresent(busInfo.isEmpty ? nil : busInfo, "busInfo")
            try c.putOrNull(city, "city")
            try c.putOrNull(durationMinutes, "durationMinutes")
            try c.putOrNull(distanceKm, "distanceKm")
            try c.putOrNull(difficulty, "difficulty")
            try c.put(languages, "languages")
            try c.put(isProtected, "isProtected")
            try c.putOrNull(imageURL, "imageUrl")
            try c.putOrNull(coverTrailerURL, "coverTrailerUrl")
            try c.putOrNull(route.isEmpty ? nil : RoutePolyline.format(route), "routePolyline")
            try c.putIfPresent(hasAccess, "hasAccess")
        case .guide:
            try c.put(isProtected, "isProtected")
            try c.putIfPresent(hasAccess, "hasAccess")
            var versions = c.nestedUnkeyedContainer(forKey: AnyKey("versions"))
            for language in languages {
                var v = versions.nestedContainer(keyedBy: AnyKey.self)
                try v.put(GuideVersion.identifier(tour: id, language: language), "id")
                try v.put(language, "language")
                try v.putOrNull(title[language], "title")
                try v.putOrNull(descriptionPreview[language], "description")
                try v.putOrNull(city, "city")
                try v.putOrNull(durationMinutes, "durationMinutes")
                try v.putOrNull(distanceKm, "distanceKm")
                try v.putOrNull(imageURL, "coverImageUrl")
            }
        }
    }
}

/// One element of the guide dialect's `versions`.
struct GuideVersion: Decodable {
    /// The guide gives each language version an id of its own; a folder has none, so it is derived.
    static func identifier(tour: String, language: String) -> String { "\(tour)@\(language)" }

    var language: String
    var title: String?
    var description: String?
    var city: String?
    var durationMinutes: Double?
    var distanceKm: Double?
    var coverImageURL: String?

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        language = try c.require(String.self, "language")
        title = try c.first(String.self, "title")
        description = try c.first(String.self, "description")
        city = try c.first(String.self, "city")
        durationMinutes = try c.number("durationMinutes", within: TourLimits.durationMinutes)
        distanceKm = try c.number("distanceKm", within: TourLimits.distanceKm)
        coverImageURL = try c.first(String.self, "coverImageUrl", "imageUrl")
    }
}

extension KeyedDecodingContainer where Key == AnyKey {
    /// `{lang: text}`, or a plain string (taken as language-less, stored under "").
    func localized(_ keys: String...) throws -> LocalizedText {
        for key in keys {
            let k = AnyKey(key)
            guard contains(k), try !decodeNil(forKey: k) else { continue }
            if let map = try? decode([String: String?].self, forKey: k) {
                return map.compactMapValues { $0 }
            }
            if let text = try? decode(String.self, forKey: k) { return ["": text] }
            throw DecodingError.typeMismatch(
                LocalizedText.self,
                .init(
                    codingPath: codingPath + [k],
                    debugDescription: "expected text or {language: text}"))
        }
        return [:]
    }

    /// `{lat, lng}` whose values may be null (the live service sends nulls for an unset start).
    func latLng(_ key: String) throws -> Coordinate? {
        guard let n = try nested(key) else { return nil }
        guard let lat = try n.number("lat", "latitude", within: TourLimits.latitude),
            let lng = try n.number("lng", "lon", "longitude", within: TourLimits.longitude)
        else {
            return nil
        }
        return Coordinate(latitude: lat, longitude: lng)
    }

    func route(_ key: String) throws -> [Coordinate] {
        guard let text = try first(String.self, key), !text.isEmpty else { return [] }
        do {
            return try RoutePolyline.parse(text)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath + [AnyKey(key)], debugDescription: error.description))
        }
    }
}

import Foundation

/// `GET /tours/:id?language=L`: one tour in one language. Live: flat; guide: most fields under `version`.
public struct TourDetail: Sendable, Hashable, Decodable, APIEncodable {
    public var id: String
    public var slug: String
    public var language: String?
    public var title: String
    public var description: String
    public var completionMessage: String?
    public var busInfo: String?
    public var city: String?
    public var durationMinutes: Double?
    public var distanceKm: Double?
    public var difficulty: String?
    public var languages: [String]
    public var isProtected: Bool
    public var hasAccess: Bool?
    public var imageURL: String?
    public var coverTrailerURL: String?
    /// Nil when the service has none (it sends `{lat: null, lng: null}`).
    public var startingPoint: Coordinate?
    public var route: [Coordinate]
    /// Only the guide dialect says.
    public var pointCount: Int?

    public init(
        id: String, slug: String, language: String? = nil, title: String, description: String = "",
        completionMessage: String? = nil, busInfo: String? = nil, city: String? = nil,
        durationMinutes: Double? = nil, distanceKm: Double? = nil, difficulty: String? = nil,
        languages: [String], isProtected: Bool = false, hasAccess: Bool? = nil, imageURL: String? = nil,
        coverTrailerURL: String? = nil, startingPoint: Coordinate? = nil, route: [Coordinate] = [],
        pointCount: Int? = nil
    ) {
        self.id = id
        self.slug = slug
        self.language = language
        self.title = title
        self.description = description
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
        self.startingPoint = startingPoint
        self.route = route
        self.pointCount = pointCount
    }

    public init(from decoder: any Decoder) throws {
        let top = try decoder.container(keyedBy: AnyKey.self)
        id = try top.requireIdentifier("id")
        slug = try top.slug() ?? id
        isProtected = try top.first(Bool.self, "isProtected") ?? false
        hasAccess = try top.first(Bool.self, "hasAccess")
        pointCount = try top.first(JSONInteger.self, "pointCount")?.value
        // The guide nests the language version; the live service is flat. Read either.
        let c = try top.nested("version") ?? top
        language = try c.first(String.self, "language")
        title = try Self.text(c, "title") ?? ""
        description = try Self.text(c, "description", "descriptionPreview") ?? ""
        completionMessage = try Self.text(c, "completionMessage") ?? Self.text(top, "completionMessage")
        busInfo = try Self.text(c, "busInfo") ?? Self.text(top, "busInfo")
        city = try c.first(String.self, "city")
        durationMinutes = try c.number("durationMinutes", within: TourLimits.durationMinutes)
        distanceKm = try c.number("distanceKm", within: TourLimits.distanceKm)
        difficulty = try c.first(String.self, "difficulty") ?? top.first(String.self, "difficulty")
        languages = try top.first([String].self, "languages") ?? language.map { [$0] } ?? []
        imageURL = try c.first(String.self, "imageUrl", "coverImageUrl")
        coverTrailerURL = try c.first(String.self, "coverTrailerUrl", "videoUrl")
        startingPoint = try c.latLng("startingPoint")
        route = try c.route("routePolyline").isEmpty ? top.route("routePolyline") : c.route("routePolyline")
    }

    /// A field that is a plain string in this language, or (some servers) a `{lang: text}` map.
    private static func text(_ c: KeyedDecodingContainer<AnyKey>, _ keys: String...) throws -> String? {
        for key in keys {
            let k = AnyKey(key)
            guard c.contains(k), try !c.decodeNil(forKey: k) else { continue }
            if let s = try? c.decode(String.self, forKey: k) { return s }
            if let m = try? c.decode([String: String].self, forKey: k) { return m.best(nil) }
        }
        return nil
    }
}

extension TourDetail {
    /// Live: flat, with `startingPoint` as `{lat, lng}` (nulls when unset) and the service's
    /// `downloadInfo` placeholder. Guide: the language version nested under `version`, plus `pointCount`.
    public func encode(to encoder: any Encoder, dialect: APIDialect) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.put(id, "id")
        try c.put(slug, "slug")
        switch dialect {
        case .live:
            try c.put(title, "title")
            try c.put(description, "description")
            try c.putOrNull(completionMessage, "completionMessage")
            try c.putOrNull(busInfo, "busInfo")
            try c.putOrNull(city, "city")
            try c.putOrNull(durationMinutes, "durationMinutes")
            try c.putOrNull(distanceKm, "distanceKm")
            try c.putOrNull(difficulty, "difficulty")
            try c.put(languages, "languages")
            try c.put(isProtected, "isProtected")
            try c.putIfPresent(hasAccess, "hasAccess")
            try c.putOrNull(imageURL, "imageUrl")
            try c.putOrNull(coverTrailerURL, "coverTrailerUrl")
            try Self.putStart(startingPoint, into: &c)
            try c.putOrNull(route.isEmpty ? nil : RoutePolyline.format(route), "routePolyline")
            try c.put(["placeholder": true] as JSONValue, "downloadInfo")
        case .guide:
            try c.put(isProtected, "isProtected")
            try c.putIfPresent(hasAccess, "hasAccess")
            var v = c.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("version"))
            let lang = language ?? languages.first ?? ""
            try v.put(GuideVersion.identifier(tour: id, language: lang), "id")
            try v.put(lang, "language")
            try v.put(title, "title")
            try v.put(description, "description")
            try Self.putStart(startingPoint, into: &v)
            try v.putOrNull(city, "city")
            try v.putOrNull(durationMinutes, "durationMinutes")
            try v.putOrNull(distanceKm, "distanceKm")
            try v.putOrNull(imageURL, "coverImageUrl")
            try v.putOrNull(coverTrailerURL, "videoUrl")
            try c.putIfPresent(pointCount, "pointCount")
        }
    }

    private static func putStart(_ point: Coordinate?, into c: inout KeyedEncodingContainer<AnyKey>) throws {
        var s = c.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("startingPoint"))
        try s.putOrNull(point?.latitude, "lat")
        try s.putOrNull(point?.longitude, "lng")
    }
}

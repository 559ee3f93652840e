import Foundation

/// `GET /tours/:id?language=L`: one tour in one language. Live: flat; guide: most fields under `version`.
public struct TourDetail: Sendable, Hashable, Decodable {
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

    public init(from decoder: any Decoder) throws {
        let top = try decoder.container(keyedBy: AnyKey.self)
        id = try top.requireIdentifier("id")
        slug = try top.first(String.self, "slug") ?? id
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
        durationMinutes = try c.number("durationMinutes")
        distanceKm = try c.number("distanceKm")
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

import Foundation

/// One element of `GET /tours/:id/points?language=L`.
/// Live: `{id, order, title, description, location: {lat, lng}, triggerRadiusMeters}`.
/// Guide: `{id, order, lat, lng, triggerRadiusMeters, localization: {title, contentText, audioUrl, imageUrl}}`.
public struct TourPoint: Sendable, Hashable, Decodable, Identifiable, APIEncodable {
    public var id: String
    public var order: Int
    public var coordinate: Coordinate
    public var triggerRadiusMeters: Double
    public var title: String
    public var description: String
    /// Only the guide dialect puts media URLs on points; the live service uses the manifest.
    public var audioURL: String?
    public var imageURL: String?

    public init(
        id: String, order: Int, coordinate: Coordinate, triggerRadiusMeters: Double, title: String,
        description: String = "", audioURL: String? = nil, imageURL: String? = nil
    ) {
        self.id = id
        self.order = order
        self.coordinate = coordinate
        self.triggerRadiusMeters = triggerRadiusMeters
        self.title = title
        self.description = description
        self.audioURL = audioURL
        self.imageURL = imageURL
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        id = try c.requireIdentifier("id")
        order = try c.require(JSONInteger.self, "order").value
        if let loc = try c.latLng("location") {
            coordinate = loc
        } else if let lat = try c.number("lat", "latitude", within: TourLimits.latitude),
            let lng = try c.number("lng", "longitude", within: TourLimits.longitude)
        {
            coordinate = Coordinate(latitude: lat, longitude: lng)
        } else {
            throw DecodingError.keyNotFound(
                AnyKey("location"),
                .init(
                    codingPath: c.codingPath,
                    debugDescription: "a point needs location {lat, lng} (or lat and lng)"))
        }
        guard coordinate.isValid else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: c.codingPath + [AnyKey("location")],
                    debugDescription: "\(coordinate) is not a coordinate on earth"))
        }
        guard
            let radius = try c.number(
                "triggerRadiusMeters", "triggerRadius", "radius", within: TourLimits.triggerRadiusMeters)
        else {
            throw DecodingError.keyNotFound(
                AnyKey("triggerRadiusMeters"),
                .init(codingPath: c.codingPath, debugDescription: "a point needs a triggerRadiusMeters"))
        }
        triggerRadiusMeters = radius
        let loc = try c.nested("localization")
        title = try c.first(String.self, "title") ?? loc?.first(String.self, "title") ?? ""
        description =
            try c.first(String.self, "description", "contentText") ?? loc?.first(
                String.self, "contentText", "description") ?? ""
        audioURL = try loc?.first(String.self, "audioUrl") ?? c.first(String.self, "audioUrl")
        imageURL = try loc?.first(String.self, "imageUrl") ?? c.first(String.self, "imageUrl")
    }
}

extension TourPoint {
    public func encode(to encoder: any Encoder, dialect: APIDialect) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.put(id, "id")
        try c.put(order, "order")
        switch dialect {
        case .live:
            try c.put(title, "title")
            try c.put(description, "description")
            var loc = c.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("location"))
            try loc.put(coordinate.latitude, "lat")
            try loc.put(coordinate.longitude, "lng")
            try c.put(triggerRadiusMeters, "triggerRadiusMeters")
        case .guide:
            try c.put(coordinate.latitude, "lat")
            try c.put(coordinate.longitude, "lng")
            try c.put(triggerRadiusMeters, "triggerRadiusMeters")
            var loc = c.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("localization"))
            try loc.put(title, "title")
            try loc.put(description, "contentText")
            try loc.putOrNull(audioURL, "audioUrl")
            try loc.putOrNull(imageURL, "imageUrl")
        }
    }
}

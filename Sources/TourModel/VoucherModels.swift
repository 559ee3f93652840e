import Foundation

/// The answer of `POST /vouchers/validate`. The voucher unlocks *its* tour, which may not be the one
/// the user had in mind: always act on `tourID` from here.
/// Live: `{success, message, tourId, tourTitle}`; guide: `{voucher: {code, tourId, validUntil}, tour: {id, slug, title}, accessGranted}`.
public struct VoucherRedemption: Sendable, Hashable, Decodable, APIEncodable {
    public var success: Bool
    public var message: String?
    public var tourID: String
    public var tourTitle: String?
    public var tourSlug: String?
    public var code: String?
    public var validUntil: Date?

    public init(
        success: Bool = true, message: String? = nil, tourID: String, tourTitle: String? = nil,
        tourSlug: String? = nil, code: String? = nil, validUntil: Date? = nil
    ) {
        self.success = success
        self.message = message
        self.tourID = tourID
        self.tourTitle = tourTitle
        self.tourSlug = tourSlug
        self.code = code
        self.validUntil = validUntil
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        if let voucher = try c.nested("voucher") {
            let tour = try c.nested("tour")
            success = try c.first(Bool.self, "accessGranted", "success") ?? true
            message = try c.first(String.self, "message")
            tourID = try tour?.identifier("id") ?? voucher.identifier("tourId") ?? ""
            tourTitle = try tour.flatMap { t in try t.first(String.self, "title") }
            tourSlug = try tour.flatMap { t in try t.first(String.self, "slug") }
            code = try voucher.first(String.self, "code")
            validUntil = try voucher.first(String.self, "validUntil").flatMap(ISO8601.parse)
        } else {
            success = try c.first(Bool.self, "success") ?? true
            message = try c.first(String.self, "message")
            tourID = try c.identifier("tourId") ?? ""
            tourTitle = try c.first(String.self, "tourTitle")
            tourSlug = try c.first(String.self, "tourSlug")
            code = try c.first(String.self, "code")
            validUntil = nil
        }
        guard !tourID.isEmpty else {
            throw DecodingError.keyNotFound(
                AnyKey("tourId"),
                .init(
                    codingPath: c.codingPath,
                    debugDescription: "the voucher answer names no tour"))
        }
    }
}

extension VoucherRedemption {
    public func encode(to encoder: any Encoder, dialect: APIDialect) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        switch dialect {
        case .live:
            try c.put(success, "success")
            try c.putOrNull(message, "message")
            try c.put(tourID, "tourId")
            try c.putOrNull(tourTitle, "tourTitle")
        case .guide:
            var v = c.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("voucher"))
            try v.putOrNull(code, "code")
            try v.put(tourID, "tourId")
            try v.putOrNull(validUntil.map(ISO8601.format), "validUntil")
            var t = c.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("tour"))
            try t.put(tourID, "id")
            try t.putOrNull(tourSlug, "slug")
            try t.putOrNull(tourTitle, "title")
            try c.put(success, "accessGranted")
        }
    }
}

/// `GET /vouchers/my-tours`: `{tours: [{tourId, tourTitle, tourSlug, grantedAt}]}` (a bare array is accepted too).
public struct GrantedTours: Sendable, Hashable, Decodable, APIEncodable {
    public struct Entry: Sendable, Hashable, Decodable, APIEncodable {
        public var tourID: String
        public var tourTitle: String?
        public var tourSlug: String?
        public var grantedAt: Date?

        public init(tourID: String, tourTitle: String?, tourSlug: String?, grantedAt: Date?) {
            self.tourID = tourID
            self.tourTitle = tourTitle
            self.tourSlug = tourSlug
            self.grantedAt = grantedAt
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            tourID = try c.identifier("tourId", "id") ?? ""
            tourTitle = try c.first(String.self, "tourTitle", "title")
            tourSlug = try c.first(String.self, "tourSlug", "slug")
            grantedAt = try c.first(String.self, "grantedAt").flatMap(ISO8601.parse)
        }

        public func encode(to encoder: any Encoder, dialect: APIDialect) throws {
            var c = encoder.container(keyedBy: AnyKey.self)
            try c.put(tourID, "tourId")
            try c.putOrNull(tourTitle, "tourTitle")
            try c.putOrNull(tourSlug, "tourSlug")
            try c.putOrNull(grantedAt.map(ISO8601.format), "grantedAt")
        }
    }
    public var tours: [Entry]

    public init(tours: [Entry]) { self.tours = tours }

    public func encode(to encoder: any Encoder, dialect: APIDialect) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.put(tours, "tours", dialect: dialect)
    }

    public init(from decoder: any Decoder) throws {
        if let c = try? decoder.container(keyedBy: AnyKey.self) {
            tours = try c.first([Entry].self, "tours") ?? []
        } else {
            tours = try [Entry](from: decoder)
        }
    }
}

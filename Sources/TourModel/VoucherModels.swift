import Foundation

/// The answer of `POST /vouchers/validate`. The voucher unlocks *its* tour, which may not be the one
/// the user had in mind: always act on `tourID` from here.
/// Live: `{success, message, tourId, tourTitle}`; guide: `{voucher: {code, tourId, validUntil}, tour: {id, slug, title}, accessGranted}`.
public struct VoucherRedemption: Sendable, Hashable, Decodable {
    public var success: Bool
    public var message: String?
    public var tourID: String
    public var tourTitle: String?
    public var tourSlug: String?
    public var code: String?
    public var validUntil: Date?

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
            throw DecodingError.keyNotFound(AnyKey("tourId"), .init(codingPath: c.codingPath,
                debugDescription: "the voucher answer names no tour"))
        }
    }
}

/// `GET /vouchers/my-tours`: `{tours: [{tourId, tourTitle, tourSlug, grantedAt}]}` (a bare array is accepted too).
public struct GrantedTours: Sendable, Hashable, Decodable {
    public struct Entry: Sendable, Hashable, Decodable {
        public var tourID: String
        public var tourTitle: String?
        public var tourSlug: String?
        public var grantedAt: Date?

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            tourID = try c.identifier("tourId", "id") ?? ""
            tourTitle = try c.first(String.self, "tourTitle", "title")
            tourSlug = try c.first(String.self, "tourSlug", "slug")
            grantedAt = try c.first(String.self, "grantedAt").flatMap(ISO8601.parse)
        }
    }
    public var tours: [Entry]

    public init(from decoder: any Decoder) throws {
        if let c = try? decoder.container(keyedBy: AnyKey.self) {
            tours = try c.first([Entry].self, "tours") ?? []
        } else {
            tours = try [Entry](from: decoder)
        }
    }
}

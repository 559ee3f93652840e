import Foundation

/// `GET /tours/:id/manifest?language=L`: the media to download for one language version.
public struct TourManifest: Sendable, Hashable, Decodable, APIEncodable {
    public var tourID: String
    public var language: String
    /// Changes only when a language version is republished, so it is not enough to tell whether a
    /// download is current: compare the files too (`fingerprint`).
    public var version: String
    public var audio: [MediaFile]
    public var images: [MediaFile]
    public var subtitles: [MediaFile]
    public var offlineMap: OfflineMap?

    public init(
        tourID: String, language: String, version: String, audio: [MediaFile], images: [MediaFile] = [],
        subtitles: [MediaFile] = [], offlineMap: OfflineMap? = nil
    ) {
        self.tourID = tourID
        self.language = language
        self.version = version
        self.audio = audio
        self.images = images
        self.subtitles = subtitles
        self.offlineMap = offlineMap
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        tourID = try c.identifier("tourId", "tour_id") ?? ""
        language = try c.first(String.self, "language") ?? ""
        version = try c.identifier("version") ?? "0"
        audio = try c.first([MediaFile].self, "audio") ?? []
        images = try c.first([MediaFile].self, "images") ?? []
        subtitles = try c.first([MediaFile].self, "subtitles") ?? []
        offlineMap = try? c.first(OfflineMap.self, "offlineMap")
    }

    /// Every file, audio first.
    public var allFiles: [MediaFile] { audio + subtitles + images }
    /// Saturates rather than traps (each size is within `TourLimits.fileSizeBytes` already).
    public var totalBytes: Int64 {
        allFiles.reduce(0) { sum, file in
            let size = max(0, file.sizeBytes ?? 0)
            return sum > Int64.max - size ? .max : sum + size
        }
    }

    /// The earliest moment a URL of this manifest stops working, when anything says.
    public var expiresAt: Date? { allFiles.compactMap(\.expiresAt).min() }

    /// Identifies the content regardless of URL signatures: each file's point, kind, path (without
    /// the query, which changes with every signature) and size, in a stable order.
    public var fingerprint: String {
        func rows(_ kind: String, _ files: [MediaFile]) -> [String] {
            files.map { f in
                let path = URLComponents(string: f.url).map { "\($0.host ?? "")\($0.path)" } ?? f.url
                return "\(kind)|\(f.pointID ?? "")|\(f.language ?? "")|\(path)|\(f.sizeBytes.map(String.init) ?? "?")"
            }
        }
        return (rows("audio", audio) + rows("subtitle", subtitles) + rows("image", images)).sorted().joined(
            separator: "\n")
    }
}

extension TourManifest {
    /// Live: `fileUrl`/`fileSizeBytes`; guide: `url`/`sizeBytes`/`expiresAt`. A numeric version is sent
    /// as a number, as both dialects do.
    public func encode(to encoder: any Encoder, dialect: APIDialect) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.put(tourID, "tourId")
        try c.put(language, "language")
        if let number = Int(version) { try c.put(number, "version") } else { try c.put(version, "version") }
        try c.put(audio, "audio", dialect: dialect)
        try c.put(images, "images", dialect: dialect)
        try c.put(subtitles, "subtitles", dialect: dialect)
        try c.putOrNull(offlineMap, "offlineMap")
    }
}

/// One downloadable file. `url` is opaque (a presigned S3 URL in production).
public struct MediaFile: Sendable, Hashable, Decodable, APIEncodable {
    public var pointID: String?
    public var order: Int?
    public var language: String?
    public var url: String
    /// The declared size: the only integrity check the service offers.
    public var sizeBytes: Int64?
    /// From the guide's `expiresAt`, else from the URL's `X-Amz-Date` + `X-Amz-Expires`.
    public var expiresAt: Date?

    public init(
        pointID: String?, order: Int? = nil, language: String? = nil, url: String, sizeBytes: Int64?,
        expiresAt: Date? = nil
    ) {
        self.pointID = pointID
        self.order = order
        self.language = language
        self.url = url
        self.sizeBytes = sizeBytes
        self.expiresAt = expiresAt ?? PresignedURL.expiry(of: url)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        pointID = try c.identifier("pointId")
        order = try c.first(JSONInteger.self, "order")?.value
        language = try c.first(String.self, "language")
        url = try c.require(String.self, "fileUrl", "url")
        sizeBytes = try c.wholeNumber("fileSizeBytes", "sizeBytes", within: TourLimits.fileSizeBytes).map { Int64($0) }
        if let text = try c.first(String.self, "expiresAt") {
            expiresAt = ISO8601.parse(text)
        } else {
            expiresAt = PresignedURL.expiry(of: url)
        }
    }

    public func encode(to encoder: any Encoder, dialect: APIDialect) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.putIfPresent(pointID, "pointId")
        try c.putIfPresent(order, "order")
        try c.putIfPresent(language, "language")
        switch dialect {
        case .live:
            try c.put(url, "fileUrl")
            try c.putIfPresent(sizeBytes, "fileSizeBytes")
        case .guide:
            try c.put(url, "url")
            try c.putIfPresent(expiresAt.map(ISO8601.format), "expiresAt")
            try c.putIfPresent(sizeBytes, "sizeBytes")
        }
    }
}

public struct OfflineMap: Sendable, Hashable, Codable, APIEncodable {
    public struct Bounds: Sendable, Hashable, Codable {
        public var north: Double
        public var south: Double
        public var east: Double
        public var west: Double

        public init(north: Double, south: Double, east: Double, west: Double) {
            self.north = north
            self.south = south
            self.east = east
            self.west = west
        }
    }
    public var tilesURLTemplate: String?
    public var bounds: Bounds?
    public var recommendedZoomLevels: [Int]

    public init(tilesURLTemplate: String?, bounds: Bounds?, recommendedZoomLevels: [Int]) {
        self.tilesURLTemplate = tilesURLTemplate
        self.bounds = bounds
        self.recommendedZoomLevels = recommendedZoomLevels
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        tilesURLTemplate = try c.first(String.self, "tilesUrlTemplate")
        bounds = try? c.first(Bounds.self, "bounds")
        recommendedZoomLevels = (try? c.first([Int].self, "recommendedZoomLevels")) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.putOrNull(tilesURLTemplate, "tilesUrlTemplate")
        try c.putOrNull(bounds, "bounds")
        try c.put(recommendedZoomLevels, "recommendedZoomLevels")
    }

    public func encode(to encoder: any Encoder, dialect: APIDialect) throws {
        try encode(to: encoder)
    }
}

/// Reads the expiry of an S3 presigned URL from its query (`X-Amz-Date=20260501T090000Z&X-Amz-Expires=86400`).
public enum PresignedURL {
    public static func expiry(of url: String) -> Date? {
        guard let items = URLComponents(string: url)?.queryItems else { return nil }
        var date: Date?, seconds: Double?
        for item in items {
            switch item.name.lowercased() {
            case "x-amz-date":
                if let v = item.value { date = parseAmzDate(v) }
            case "x-amz-expires":
                if let v = item.value { seconds = Double(v) }
            default: break
            }
        }
        guard let date, let seconds else { return nil }
        return date.addingTimeInterval(seconds)
    }

    /// `yyyyMMdd'T'HHmmss'Z'`, always UTC.
    public static func formatAmzDate(_ date: Date) -> String {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: "UTC")!
        let c = cal.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ v: Int?) -> String { let v = v ?? 0; return v < 10 ? "0\(v)" : "\(v)" }
        return "\(c.year ?? 1970)\(two(c.month))\(two(c.day))T\(two(c.hour))\(two(c.minute))\(two(c.second))Z"
    }

    /// `yyyyMMdd'T'HHmmss'Z'`, always UTC.
    public static func parseAmzDate(_ text: String) -> Date? {
        let u = Array(text.utf8)
        guard u.count == 16, u[8] == UInt8(ascii: "T"), u[15] == UInt8(ascii: "Z"),
            (u[0..<8] + u[9..<15]).allSatisfy({ (0x30...0x39).contains($0) })
        else { return nil }
        // Digits only (`Int` would take a sign), and a time that exists: hour 25 or day 32 were read.
        func num(_ r: Range<Int>) -> Int { u[r].reduce(0) { $0 * 10 + Int($1 - 0x30) } }
        let (y, mo, d, h, mi, s) = (num(0..<4), num(4..<6), num(6..<8), num(9..<11), num(11..<13), num(13..<15))
        guard CivilDate.isValid(year: y, month: mo, day: d), CivilDate.isValidTime(hour: h, minute: mi, second: s)
        else { return nil }
        let seconds = CivilDate.days(year: y, month: mo, day: d) * 86_400 + h * 3600 + mi * 60 + s
        return Date(timeIntervalSince1970: Double(seconds))
    }
}

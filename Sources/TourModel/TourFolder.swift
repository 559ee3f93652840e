import FileAccess
import Foundation

/// A tour on disk in the format of `docs/tour-folder.md`, loaded and validated.
///
/// Loading checks everything that would make a walk fail or misbehave (bad coordinates, duplicate
/// orders, media that is not there) and reports the first problem as one precise line. Quality
/// problems that still make a playable tour are `lint`'s business.
public struct TourFolder: Sendable, Hashable {
    public static let manifestName = "tour.json"
    public static let supportedFormat = 1

    public struct LanguageInfo: Sendable, Hashable {
        public var title: String
        public var description: String
        public var completionMessage: String?
        public var busInfo: String?

        public init(title: String, description: String, completionMessage: String?, busInfo: String?) {
            self.title = title
            self.description = description
            self.completionMessage = completionMessage
            self.busInfo = busInfo
        }
    }

    public struct PointContent: Sendable, Hashable {
        public var title: String
        public var description: String
        public var audio: URL?
        public var subtitles: URL?
        public var image: URL?

        public init(title: String, description: String, audio: URL?, subtitles: URL?, image: URL?) {
            self.title = title
            self.description = description
            self.audio = audio
            self.subtitles = subtitles
            self.image = image
        }
    }

    public struct Point: Sendable, Hashable, Identifiable {
        public var id: String
        public var order: Int
        public var coordinate: Coordinate
        public var triggerRadiusMeters: Double
        /// Per language code.
        public var content: [String: PointContent]

        public init(
            id: String, order: Int, coordinate: Coordinate, triggerRadiusMeters: Double,
            content: [String: PointContent]
        ) {
            self.id = id
            self.order = order
            self.coordinate = coordinate
            self.triggerRadiusMeters = triggerRadiusMeters
            self.content = content
        }
    }

    public var root: URL
    public var id: String
    public var slug: String
    public var city: String?
    public var difficulty: String?
    public var durationMinutes: Double?
    public var distanceKm: Double?
    public var isProtected: Bool
    public var defaultLanguage: String
    /// Per language code.
    public var languageInfo: [String: LanguageInfo]
    /// Ordered by `order`.
    public var points: [Point]
    public var route: [Coordinate]
    public var image: URL?
    public var traces: [URL]

    /// A tour folder assembled from values rather than loaded from a `tour.json`: the content
    /// store builds one for an installed tour, so `lint`, `map` and `preview` read an installed
    /// tour exactly as they read a folder. The caller vouches for what the loader checks.
    public init(
        root: URL, id: String, slug: String, city: String? = nil, difficulty: String? = nil,
        durationMinutes: Double? = nil, distanceKm: Double? = nil, isProtected: Bool = false,
        defaultLanguage: String, languageInfo: [String: LanguageInfo], points: [Point],
        route: [Coordinate] = [], image: URL? = nil, traces: [URL] = []
    ) {
        self.root = root
        self.id = id
        self.slug = slug
        self.city = city
        self.difficulty = difficulty
        self.durationMinutes = durationMinutes
        self.distanceKm = distanceKm
        self.isProtected = isProtected
        self.defaultLanguage = defaultLanguage
        self.languageInfo = languageInfo
        self.points = points.sorted { $0.order < $1.order }
        self.route = route
        self.image = image
        self.traces = traces
    }

    /// The tour's languages, sorted.
    public var languages: [String] { languageInfo.keys.sorted() }

    /// True when `url` is a folder holding a `tour.json` (how the CLI tells a folder from a tour id).
    public static func isTourFolder(_ url: URL) -> Bool {
        FileManager.default.fileExists(atPath: url.appendingPathComponent(manifestName).path)
    }

    public static func load(from root: URL) throws(TourModelError) -> TourFolder {
        let root = root.standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory) else {
            throw TourModelError(file: root.path, reason: "no such folder")
        }
        guard isDirectory.boolValue else {
            throw TourModelError(file: root.path, reason: "is a file, not a tour folder")
        }
        let paths: TourFolderPaths
        do { paths = try TourFolderPaths(root: root) } catch {
            throw TourModelError(file: root.path, reason: "cannot be read (\(error.reason))")
        }
        let data = JSONStrictSyntax.utf8(try paths.manifest())
        if let problem = JSONStrictSyntax.firstProblem(in: data) {
            let (line, column) = Self.lineAndColumn(of: problem.offset, in: data)
            throw TourModelError(
                file: manifestName, reason: "not valid JSON (\(problem.what) at line \(line), column \(column))")
        }
        // The decoder keeps one of two equal keys without a word; the curator must choose.
        if let duplicate = JSONDuplicateKeys.first(in: data) {
            throw TourModelError(
                file: manifestName, field: duplicate.path, reason: "\"\(duplicate.key)\" appears twice")
        }
        let raw: RawTour
        do {
            raw = try JSONDecoder().decode(RawTour.self, from: data)
        } catch let error as DecodingError {
            throw Self.describe(error, in: data)
        } catch {
            throw TourModelError(file: manifestName, reason: "not valid JSON")
        }
        return try Validator(paths: paths, raw: raw).validate()
    }

    /// The tour in one language (`nil`: the default), as the walk core consumes it.
    ///
    /// A point without content in that language is announced by its default-language title and
    /// has no audio, so the walk never stalls on a gap in a translation.
    public func playable(language: String? = nil) throws(TourModelError) -> PlayableTour {
        let lang = language.map { LanguageTag.match($0, in: languages) ?? $0 } ?? defaultLanguage
        guard let info = languageInfo[lang] else {
            throw TourModelError(
                file: Self.manifestName, field: "languages",
                reason: "the tour has no language '\(lang)' (it has \(languages.joined(separator: ", ")))")
        }
        let playablePoints = points.map { point -> PlayablePoint in
            if let content = point.content[lang] {
                return PlayablePoint(
                    id: point.id, order: point.order, coordinate: point.coordinate,
                    triggerRadiusMeters: point.triggerRadiusMeters, title: content.title,
                    text: content.description, audio: content.audio,
                    subtitles: content.subtitles, image: content.image)
            }
            let fallback = point.content[defaultLanguage] ?? point.content.sorted { $0.key < $1.key }.first?.value
            return PlayablePoint(
                id: point.id, order: point.order, coordinate: point.coordinate,
                triggerRadiusMeters: point.triggerRadiusMeters,
                title: fallback?.title ?? "Point \(point.order)",
                text: fallback?.description ?? "", image: fallback?.image)
        }
        return PlayableTour(
            id: id, slug: slug, language: lang, title: info.title, description: info.description,
            completionMessage: info.completionMessage, points: playablePoints, route: route)
    }

    private static func describe(_ error: DecodingError, in data: Data) -> TourModelError {
        switch error {
        case .keyNotFound(let key, let context):
            return TourModelError(
                file: manifestName, field: JSONPath.render(context.codingPath, appending: key.stringValue),
                reason: "is required")
        case .typeMismatch(let type, let context):
            if context.codingPath.isEmpty {
                return TourModelError(file: manifestName, reason: "the top level must be an object")
            }
            return TourModelError(
                file: manifestName, field: JSONPath.render(context.codingPath),
                reason: "must be \(Self.typeName(type))")
        case .valueNotFound(let type, let context):
            return TourModelError(
                file: manifestName, field: JSONPath.render(context.codingPath),
                reason: "must be \(Self.typeName(type)), not null")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return TourModelError(file: manifestName, reason: "not valid JSON (\(syntaxProblem(in: data)))")
            }
            return TourModelError(
                file: manifestName, field: JSONPath.render(context.codingPath),
                reason: context.debugDescription)
        @unknown default:
            return TourModelError(file: manifestName, reason: "cannot be decoded")
        }
    }

    /// JSONDecoder only says "not valid JSON"; JSONSerialization says where ("around character N"),
    /// which we turn into the line and column an editor shows.
    static func syntaxProblem(in data: Data) -> String {
        do {
            if try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) is [String: Any] {
                // Well-formed, yet the decoder refused a value without saying where.
                return "a value cannot be read"
            }
            return "the top level must be an object"
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            guard let range = detail.range(of: #"character (\d+)"#, options: .regularExpression),
                let offset = Int(detail[range].dropFirst("character ".count))
            else { return detail }
            let (line, column) = lineAndColumn(of: offset, in: data)
            let what = detail.components(separatedBy: " around ").first ?? detail
            return "\(what.lowercased()) at line \(line), column \(column)"
        }
    }

    /// The line and column (from 1) an editor shows for a byte offset. Characters, not bytes: `日本語` before the spot is three columns, and a UTF-8 mark none.
    static func lineAndColumn(of offset: Int, in data: Data) -> (line: Int, column: Int) {
        let before = data.prefix(offset)
        let line = before.count { $0 == UInt8(ascii: "\n") } + 1
        let start = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? before.startIndex
        var text = String(decoding: before[start...], as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        return (line, text.count + 1)
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type: return "an integer"
        case is Double.Type: return "a number"
        case is Bool.Type: return "true or false"
        case is [Any].Type: return "an array"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") || name.hasPrefix("Raw") { return "an object" }
            return name
        }
    }
}

// MARK: - Raw shapes (decoding only)

struct RawTour: Decodable {
    var format: JSONInteger
    var id: String
    var slug: String
    var city: String?
    var difficulty: String?
    var durationMinutes: JSONNumber?
    var distanceKm: JSONNumber?
    var isProtected: Bool?
    var defaultLanguage: String?
    var route: String?
    var image: String?
    var languages: [String: RawLanguage]
    var points: [RawPoint]
    var traces: [String]?
}

struct RawLanguage: Decodable {
    var title: String
    var description: String?
    var completionMessage: String?
    var busInfo: String?
}

struct RawLocation: Decodable {
    var lat: JSONNumber
    var lng: JSONNumber
}

struct RawPoint: Decodable {
    var id: String
    var order: JSONInteger
    var location: RawLocation
    var triggerRadiusMeters: JSONNumber
    var content: [String: RawPointContent]
}

struct RawPointContent: Decodable {
    var title: String
    var description: String?
    var audio: String?
    var subtitles: String?
    var image: String?
}

// MARK: - Validation

private struct Validator {
    let paths: TourFolderPaths
    let raw: RawTour
    var root: URL { paths.root }
    let file = TourFolder.manifestName

    func fail(_ field: String, _ reason: String) -> TourModelError {
        TourModelError(file: file, field: field, reason: reason)
    }

    func validate() throws(TourModelError) -> TourFolder {
        guard raw.format.value == TourFolder.supportedFormat else {
            throw fail(
                "format",
                "\(raw.format.value) is not supported (this walkscape reads format \(TourFolder.supportedFormat))")
        }
        guard !raw.id.trimmingCharacters(in: .whitespaces).isEmpty else { throw fail("id", "must not be empty") }
        guard !raw.slug.isEmpty, raw.slug.allSatisfy({ ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" })
        else {
            throw fail("slug", "\"\(raw.slug)\" must be lowercase letters, digits and -")
        }
        if let d = raw.durationMinutes?.value, let problem = TourLimits.problem(d, TourLimits.durationMinutes) {
            throw fail("durationMinutes", "\(problem) minutes")
        }
        if let d = raw.distanceKm?.value, let problem = TourLimits.problem(d, TourLimits.distanceKm) {
            throw fail("distanceKm", "\(problem) km")
        }

        guard !raw.languages.isEmpty else { throw fail("languages", "must name at least one language") }
        var languageInfo: [String: TourFolder.LanguageInfo] = [:]
        for (code, lang) in raw.languages.sorted(by: { $0.key < $1.key }) {
            guard Self.isLanguageCode(code) else {
                throw fail("languages.\(code)", "\"\(code)\" is not a language code (like en, it, pt-BR)")
            }
            guard !lang.title.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw fail("languages.\(code).title", "must not be empty")
            }
            languageInfo[code] = .init(
                title: lang.title, description: lang.description ?? "",
                completionMessage: lang.completionMessage, busInfo: lang.busInfo)
        }
        let defaultLanguage = raw.defaultLanguage ?? languageInfo.keys.sorted()[0]
        guard languageInfo[defaultLanguage] != nil else {
            throw fail(
                "defaultLanguage",
                "'\(defaultLanguage)' is not one of languages (\(languageInfo.keys.sorted().joined(separator: ", ")))")
        }

        var route: [Coordinate] = []
        if let text = raw.route {
            do { route = try RoutePolyline.parse(text) } catch { throw fail("route", error.description) }
        }
        let image = try raw.image.map { p throws(TourModelError) in try media(p, field: "image") }

        guard !raw.points.isEmpty else { throw fail("points", "must list at least one point") }
        var points: [TourFolder.Point] = []
        var seenIDs: [String: Int] = [:]
        var seenOrders: [Int: Int] = [:]
        for (i, p) in raw.points.enumerated() {
            let at = "points[\(i)]"
            let order = p.order.value, lat = p.location.lat.value, lng = p.location.lng.value
            let radius = p.triggerRadiusMeters.value
            guard !p.id.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw fail("\(at).id", "must not be empty")
            }
            if let first = seenIDs[p.id] {
                throw fail("\(at).id", "\"\(p.id)\" is used twice (points[\(first)] and \(at))")
            }
            seenIDs[p.id] = i
            if let first = seenOrders[order] {
                throw fail("\(at).order", "\(order) is used twice (points[\(first)] and \(at))")
            }
            seenOrders[order] = i
            guard TourLimits.latitude.contains(lat) else {
                throw fail("\(at).location.lat", "\(lat) is not a latitude (must be within -90...90)")
            }
            guard TourLimits.longitude.contains(lng) else {
                throw fail("\(at).location.lng", "\(lng) is not a longitude (must be within -180...180)")
            }
            guard TourLimits.triggerRadiusMeters.contains(radius) else {
                throw fail("\(at).triggerRadiusMeters", "\(radius) must be greater than 0 and at most 1000 metres")
            }
            guard !p.content.isEmpty else { throw fail("\(at).content", "must have content in at least one language") }
            var content: [String: TourFolder.PointContent] = [:]
            for (code, c) in p.content.sorted(by: { $0.key < $1.key }) {
                let cAt = "\(at).content.\(code)"
                guard languageInfo[code] != nil else {
                    throw fail(
                        cAt,
                        "'\(code)' is not one of the tour's languages (\(languageInfo.keys.sorted().joined(separator: ", ")))"
                    )
                }
                guard !c.title.trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw fail("\(cAt).title", "must not be empty")
                }
                content[code] = .init(
                    title: c.title, description: c.description ?? "",
                    audio: try c.audio.map { x throws(TourModelError) in try media(x, field: "\(cAt).audio") },
                    subtitles: try c.subtitles.map { x throws(TourModelError) in try media(x, field: "\(cAt).subtitles")
                    },
                    image: try c.image.map { x throws(TourModelError) in try media(x, field: "\(cAt).image") })
            }
            points.append(
                .init(
                    id: p.id, order: order,
                    coordinate: Coordinate(latitude: lat, longitude: lng),
                    triggerRadiusMeters: radius, content: content))
        }
        points.sort { $0.order < $1.order }

        var traces: [URL] = []
        for (i, t) in (raw.traces ?? []).enumerated() {
            traces.append(try media(t, field: "traces[\(i)]"))
        }

        return TourFolder(
            root: root, id: raw.id, slug: raw.slug, city: raw.city, difficulty: raw.difficulty,
            durationMinutes: raw.durationMinutes?.value, distanceKm: raw.distanceKm?.value,
            isProtected: raw.isProtected ?? false, defaultLanguage: defaultLanguage,
            languageInfo: languageInfo, points: points, route: route, image: image, traces: traces)
    }

    /// A relative media path as a file inside the folder, refusing paths that leave it by name
    /// or through links, and anything that is not a regular file.
    func media(_ path: String, field: String) throws(TourModelError) -> URL {
        do { return try paths.file(path) } catch { throw fail(field, error.reason(for: path)) }
    }

    static func isLanguageCode(_ code: String) -> Bool {
        let parts = code.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count),
            first.allSatisfy({ $0.isASCII && $0.isLowercase })
        else { return false }
        return parts.dropFirst().allSatisfy {
            (2...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }
}

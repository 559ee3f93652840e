import Foundation
import TourModel

/// Turns a served tour folder into the service's wire values for one request: texts per language,
/// points, and media as signed URLs under the base the client reached us at.
struct TourPresenter {
    let configuration: ServerConfiguration
    let signer: MediaSigner
    let base: String
    /// Every URL of one answer is signed from the same second.
    let amzDate: String
    let expires: String
    let expiresAt: Date

    init(configuration: ServerConfiguration, signer: MediaSigner, base: String, now: Date) {
        self.configuration = configuration
        self.signer = signer
        self.base = base
        let second = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        amzDate = PresignedURL.formatAmzDate(second)
        expires = String(configuration.mediaURLTTL)
        expiresAt = second.addingTimeInterval(Double(configuration.mediaURLTTL))
    }

    /// Tile template on a host that never resolves: the live service's offline map is a placeholder too.
    static let tilesTemplate = "https://tiles.walkscape.invalid/{z}/{x}/{y}.png"
    static let previewLength = 200

    func url(_ tour: ServedTour, _ entry: MediaEntry) -> String {
        signer.url(base: base, tourID: tour.id, relativePath: entry.relativePath, amzDate: amzDate, expires: expires)
    }

    func url(_ tour: ServedTour, file: URL?) -> String? {
        tour.entry(for: file).map { url(tour, $0) }
    }

    func summary(_ tour: ServedTour, hasAccess: Bool?) -> TourSummary {
        let f = tour.folder
        var titles: LocalizedText = [:], previews: LocalizedText = [:], completions: LocalizedText = [:],
            buses: LocalizedText = [:]
        for (language, info) in f.languageInfo {
            titles[language] = info.title
            previews[language] = Self.preview(info.description)
            completions[language] = info.completionMessage
            buses[language] = info.busInfo
        }
        return TourSummary(
            id: f.id, slug: f.slug, title: titles, descriptionPreview: previews,
            completionMessage: completions, busInfo: buses, city: Self.city(f),
            durationMinutes: Self.durationMinutes(f), distanceKm: Self.distanceKm(f), difficulty: Self.difficulty(f),
            languages: f.languages, isProtected: f.isProtected, hasAccess: hasAccess,
            imageURL: url(tour, file: f.image), route: f.route)
    }

    func detail(_ tour: ServedTour, language: String, hasAccess: Bool) -> TourDetail {
        let f = tour.folder
        let info = f.languageInfo[language]
        return TourDetail(
            id: f.id, slug: f.slug, language: language, title: info?.title ?? "",
            description: info?.description ?? "", completionMessage: info?.completionMessage,
            busInfo: info?.busInfo, city: Self.city(f), durationMinutes: Self.durationMinutes(f),
            distanceKm: Self.distanceKm(f), difficulty: Self.difficulty(f), languages: f.languages,
            isProtected: f.isProtected, hasAccess: hasAccess, imageURL: url(tour, file: f.image),
            startingPoint: f.points.first?.coordinate, route: f.route, pointCount: f.points.count)
    }

    func points(_ tour: ServedTour, language: String) throws -> [TourPoint] {
        // The guide puts media links on points; the live service only in the manifest.
        let withMedia = configuration.dialect == .guide
        return try tour.folder.playable(language: language).points.map { p in
            TourPoint(
                id: p.id, order: p.order, coordinate: p.coordinate, triggerRadiusMeters: p.triggerRadiusMeters,
                title: p.title, description: p.text,
                audioURL: withMedia ? url(tour, file: p.audio) : nil,
                imageURL: withMedia ? url(tour, file: p.image) : nil)
        }
    }

    func manifest(_ tour: ServedTour, language: String) throws -> TourManifest {
        let playable = try tour.folder.playable(language: language)
        var audio: [MediaFile] = [], images: [MediaFile] = [], subtitles: [MediaFile] = []
        func file(_ entry: MediaEntry, point: PlayablePoint, order: Int? = nil, language: String? = nil, index: Int)
            -> MediaFile
        {
            MediaFile(
                pointID: point.id, order: order, language: language, url: url(tour, entry),
                sizeBytes: declaredSize(entry.stamp.size, index: index), expiresAt: expiresAt)
        }
        for point in playable.points {
            if let entry = tour.entry(for: point.audio) {
                audio.append(file(entry, point: point, order: point.order, index: audio.count))
            }
            if let entry = tour.entry(for: point.image) {
                images.append(file(entry, point: point, index: images.count))
            }
            if let entry = tour.entry(for: point.subtitles) {
                subtitles.append(file(entry, point: point, language: language, index: subtitles.count))
            }
        }
        return TourManifest(
            tourID: tour.id, language: language, version: String(tour.versions[language] ?? 1),
            audio: audio, images: images, subtitles: subtitles, offlineMap: offlineMap(tour.folder))
    }

    /// `--misdeclare-size`: files at even places in each list are declared larger than they are, at
    /// odd places smaller, by `FaultPlan.misdeclaredBytes`.
    func declaredSize(_ size: Int64, index: Int) -> Int64 {
        guard configuration.faults.misdeclareSize else { return size }
        let off = FaultPlan.misdeclaredBytes
        return index % 2 == 0 ? size + off : max(0, size - off)
    }

    func offlineMap(_ folder: TourFolder) -> OfflineMap {
        let coordinates = folder.points.map(\.coordinate) + folder.route
        let margin = 0.005
        let bounds =
            coordinates.isEmpty
            ? nil
            : OfflineMap.Bounds(
                north: min(90, coordinates.map(\.latitude).max()! + margin),
                south: max(-90, coordinates.map(\.latitude).min()! - margin),
                east: min(180, coordinates.map(\.longitude).max()! + margin),
                west: max(-180, coordinates.map(\.longitude).min()! - margin))
        return OfflineMap(tilesURLTemplate: Self.tilesTemplate, bounds: bounds, recommendedZoomLevels: [14, 15, 16])
    }

    // The live service's columns are never null: what a folder leaves out goes as the database's
    // defaults (its difficulty defaults to "facile"; an unset city, duration or distance is empty).
    static func city(_ f: TourFolder) -> String { f.city ?? "" }
    static func durationMinutes(_ f: TourFolder) -> Double { f.durationMinutes ?? 0 }
    static func distanceKm(_ f: TourFolder) -> Double { f.distanceKm ?? 0 }
    static func difficulty(_ f: TourFolder) -> String { f.difficulty ?? "facile" }

    /// The list's `descriptionPreview`: the description up to about 200 characters, cut at a word.
    static func preview(_ text: String) -> String {
        guard text.count > previewLength else { return text }
        let head = text.prefix(previewLength)
        let cut = head.lastIndex(of: " ").map { head[..<$0] } ?? head
        return cut.trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters)) + "…"
    }
}

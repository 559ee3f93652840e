import Foundation
import TourAPI
import TourModel

/// A tour in the store: the installed languages, each at the version it plays, and where their
/// bytes are. Everything a walk, a preview, a map or lint needs, with no network.
public struct InstalledTour: Sendable, Hashable {
    public var id: String
    public var slug: String
    /// The service it was downloaded from (its ids are that service's).
    public var service: String
    public var isProtected: Bool
    /// Sorted by language code.
    public var languages: [InstalledLanguage]
    /// The blob folder the files' names are in.
    public var media: URL

    public init(
        id: String, slug: String, service: String, isProtected: Bool, languages: [InstalledLanguage], media: URL
    ) {
        self.id = id
        self.slug = slug
        self.service = service
        self.isProtected = isProtected
        self.languages = languages.sorted { $0.language < $1.language }
        self.media = media
    }

    public var languageCodes: [String] { languages.map(\.language) }

    /// The language installed under `code`, its case aside (`EN` finds `en`).
    public func language(_ code: String) -> InstalledLanguage? {
        guard let tag = LanguageTag.match(code, in: languageCodes) else { return nil }
        return languages.first { $0.language == tag }
    }

    /// The title in `language` if installed, else in English, else in the first installed one.
    public func title(_ language: String? = nil) -> String {
        let pick = language.flatMap(self.language) ?? self.language("en") ?? languages.first
        return pick?.detail.title ?? slug
    }

    /// Every title, for finding the tour by a title in any installed language.
    public var titles: [String] { languages.map(\.detail.title) }

    /// Bytes on disk, each blob counted once however many files share it.
    public var bytes: Int64 {
        var seen: [String: Int64] = [:]
        for file in languages.flatMap(\.files) { seen[file.sha256] = file.identity.size }
        return seen.values.reduce(0, +)
    }

    public func blobURL(_ file: InstalledFile) -> URL { media.appendingPathComponent(file.sha256) }

    /// The tour as a tour folder whose files are the blobs: `lint`, `map` and `preview` read it as
    /// they read a folder on disk. Languages are the installed ones; `defaultLanguage` must be one
    /// (nil: English if installed, else the first). Non-MP3 audio stays in, so lint reports it.
    /// `onlyItsPoints`: the default language's points alone, as its walk plays them; else (lint,
    /// map) every point an installed language's version has, each where the default language's
    /// version has it if it has it.
    public func folder(defaultLanguage: String? = nil, onlyItsPoints: Bool = false) -> TourFolder {
        let fallback =
            defaultLanguage.flatMap { language($0) == nil ? nil : $0 }
            ?? (language("en") != nil ? "en" : languageCodes.first ?? "en")
        var info: [String: TourFolder.LanguageInfo] = [:]
        for lang in languages {
            info[lang.language] = .init(
                title: lang.detail.title, description: lang.detail.description,
                completionMessage: lang.detail.completionMessage, busInfo: lang.detail.busInfo)
        }
        // The points (ids, order, place) are the default language's. Languages installed at
        // different versions need not have the same ones: a language the service dropped stays as
        // it was while the others are updated, and a language downloaded later comes at the
        // service's version. A point only another version has is not in this language's walk (a
        // point the curator removed came back, announced in the other language); the others'
        // texts and files for these points are kept beside its own.
        let lead = language(fallback) ?? languages.first
        var points: [TourFolder.Point] = []
        var index: [String: Int] = [:]
        for lang in [lead].compactMap({ $0 }) + (onlyItsPoints ? [] : languages) {
            for point in lang.points where index[point.id] == nil {
                index[point.id] = points.count
                points.append(
                    TourFolder.Point(
                        id: point.id, order: point.order, coordinate: point.coordinate,
                        triggerRadiusMeters: point.triggerRadiusMeters, content: [:]))
            }
        }
        for lang in languages {
            for point in lang.points {
                guard let at = index[point.id] else { continue }
                points[at].content[lang.language] = TourFolder.PointContent(
                    title: point.title, description: point.description,
                    audio: lang.file(.audio, point: point.id).map(blobURL),
                    subtitles: lang.file(.subtitles, point: point.id).map(blobURL),
                    image: lang.file(.image, point: point.id).map(blobURL))
            }
        }
        let main = lead?.detail
        return TourFolder(
            root: media, id: id, slug: slug, city: main?.city, difficulty: main?.difficulty,
            durationMinutes: main?.durationMinutes, distanceKm: main?.distanceKm,
            isProtected: isProtected, defaultLanguage: fallback, languageInfo: info,
            points: points, route: main?.route ?? [])
    }

    /// The tour in one installed language, as the walk core plays it. Narration recorded as
    /// unplayable at download is left out, so the point is announced (title, text, subtitles)
    /// instead of played; `recheck` judges such a file again (a newer walkscape plays more formats
    /// than the one that downloaded it) and keeps it when it now plays.
    public func playable(language code: String, recheck: ((URL) -> String?)? = nil) throws(StoreError)
        -> PlayableTour
    {
        guard let installed = language(code) else {
            throw StoreError(
                .notFound,
                "\(slug) is installed in \(languageCodes.joined(separator: ", ")) only",
                remedy: .downloadLanguage(tour: slug, language: code))
        }
        let tag = installed.language
        var tour: PlayableTour
        do { tour = try folder(defaultLanguage: tag, onlyItsPoints: true).playable(language: tag) } catch {
            throw StoreError(.damaged, "\(slug): \(error.message)")
        }
        for index in tour.points.indices {
            tour.points[index].loudness = installed.file(.audio, point: tour.points[index].id)?.loudness
            if let file = installed.file(.audio, point: tour.points[index].id), file.audioProblem != nil {
                if let recheck, let audio = tour.points[index].audio, recheck(audio) == nil { continue }
                tour.points[index].audio = nil
            }
        }
        return tour
    }

    /// The points of `language` whose narration does not play, with why; `recheck` as for
    /// `playable(language:recheck:)`.
    public func unplayableAudio(language code: String, recheck: ((URL) -> String?)? = nil)
        -> [(point: TourPoint, problem: String)]
    {
        guard let installed = language(code) else { return [] }
        let folder = recheck == nil ? nil : self.folder(defaultLanguage: code)
        return installed.points.compactMap { point in
            guard let problem = installed.file(.audio, point: point.id)?.audioProblem else { return nil }
            if let recheck, let audio = folder?.points.first(where: { $0.id == point.id })?.content[code]?.audio {
                guard let still = recheck(audio) else { return nil }
                return (point, still)
            }
            return (point, problem)
        }
    }

    /// The points of `language` whose narration plays but was found damaged when it was measured
    /// (a file that ends early plays what it holds), with what was found.
    public func damagedAudio(language code: String) -> [(point: TourPoint, damage: String)] {
        guard let installed = language(code) else { return [] }
        return installed.points.compactMap { point in
            guard let file = installed.file(.audio, point: point.id), file.audioProblem == nil,
                let damage = file.loudness?.damage
            else { return nil }
            return (point, damage)
        }
    }
}

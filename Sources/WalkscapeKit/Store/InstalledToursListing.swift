import Foundation
import TourModel
import TourStore

/// `walkscape tours --installed`: what is on this machine, from the catalog alone. No network and
/// nothing heavy: it must answer in milliseconds with a hundred tours installed.
package struct InstalledToursListing {
    package init(settings: Settings, language: String?, city: String?) {
        self.settings = settings
        self.language = language
        self.city = city
    }

    package let settings: Settings
    package let language: String?
    package let city: String?

    package struct Row: Encodable {
        package var id: String
        package var slug: String
        package var title: String
        package var city: String?
        package var languages: [String]
        package var versions: [String: String]
        package var bytes: Int64
        package var installedAt: Date
        package var unplayableNarrations: Int
        /// By language: the narrations' loudness as measured at download (docs/loudness.md).
        package var loudness: [String: LanguageLoudness]
    }

    /// A language's narrations, as loud as measured: how many are measured, and their spread.
    package struct LanguageLoudness: Encodable {
        package var narrations: Int
        package var measured: Int
        package var quietestLUFS: Double?
        package var medianLUFS: Double?
        package var loudestLUFS: Double?

        init(_ files: [InstalledFile]) {
            let audio = files.filter { $0.role == .audio }
            narrations = audio.count
            measured = audio.count { $0.loudness != nil }
            let levels = audio.compactMap { $0.loudness?.integrated }.sorted()
            func tenths(_ value: Double?) -> Double? { value.map { ($0 * 10).rounded() / 10 } }
            quietestLUFS = tenths(levels.first)
            loudestLUFS = tenths(levels.last)
            medianLUFS = tenths(levels.isEmpty ? nil : levels[levels.count / 2])
        }
    }

    package func rows() throws(AppError) -> [Row] {
        guard let store = try StoreAccess.openForReading(settings) else { return [] }
        let tours: [InstalledTour]
        do { tours = try store.installedTours() } catch { throw AppError(error) }
        let wanted = city.map(TourMatcher<InstalledTour>.fold)
        return tours.compactMap { tour in
            let shown = tour.language(language ?? "") ?? tour.language("en") ?? tour.languages.first
            let tourCity = shown?.detail.city
            if let wanted, tourCity.map(TourMatcher<InstalledTour>.fold) != wanted { return nil }
            return Row(
                id: tour.id, slug: tour.slug, title: tour.title(language), city: tourCity,
                languages: tour.languageCodes,
                versions: Dictionary(uniqueKeysWithValues: tour.languages.map { ($0.language, $0.manifestVersion) }),
                bytes: tour.bytes, installedAt: tour.languages.map(\.installedAt).max() ?? Date(),
                // Recorded at download; judged again, as a newer walkscape plays more formats.
                unplayableNarrations: tour.languages.reduce(0) { count, language in
                    count
                        + language.files.count { file in
                            file.audioProblem != nil
                                && StoreAccess.narrationProblem(store.blobs.url(of: file.sha256)) != nil
                        }
                },
                loudness: Dictionary(
                    uniqueKeysWithValues: tour.languages.map { ($0.language, LanguageLoudness($0.files)) }))
        }
    }

    package func print(json: Bool) throws {
        let rows = try rows()
        if json { return try JSONOutput.write(rows) }
        guard !rows.isEmpty else {
            Console.out("No tours installed (walkscape download TOUR installs one).")
            return
        }
        var table = TextTable(header: ["TOUR", "TITLE", "CITY", "LANGUAGES", "SIZE", "INSTALLED"])
        table.rows = rows.map { row in
            var title = row.title
            if row.unplayableNarrations > 0 {
                title +=
                    " (\(row.unplayableNarrations) narration\(row.unplayableNarrations == 1 ? "" : "s") that do\(row.unplayableNarrations == 1 ? "es" : "") not play)"
            }
            return [
                row.slug, title, row.city ?? "-", row.languages.joined(separator: ","), ByteCount.format(row.bytes),
                HumanDate.format(row.installedAt),
            ]
        }
        Console.out(table.render())
    }
}

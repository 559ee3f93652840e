import Foundation
import GRDB

/// An installed tour's slug and languages: what a shell completes after `walkscape walk`.
public struct InstalledName: Sendable, Hashable {
    public var slug: String
    /// Sorted.
    public var languages: [String]
}

extension TourStore {
    /// The installed tours' slugs and languages, for shell completion: the catalog opened read-only,
    /// one query, no migration and nothing written (Tab must stay quick and harmless). A catalog that
    /// is absent, busy or unreadable has none.
    public static func installedNames(_ location: StoreLocation) -> [InstalledName] {
        guard FileManager.default.fileExists(atPath: location.catalog.path) else { return [] }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "walkscape-completion"
        do {
            let database = try DatabaseQueue(path: location.catalog.path, configuration: configuration)
            let rows = try database.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT tour.slug, installation.language FROM tour
                        LEFT JOIN installation ON installation.tourId = tour.id
                        ORDER BY tour.slug, installation.language
                        """)
            }
            var names: [InstalledName] = []
            for row in rows {
                let slug: String = row["slug"]
                let language: String? = row["language"]
                if names.last?.slug != slug { names.append(InstalledName(slug: slug, languages: [])) }
                if let language { names[names.count - 1].languages.append(language) }
            }
            return names
        } catch {
            return []
        }
    }
}

import TourModel

/// How a command turns its TOUR argument into a tour of the service's catalog, and picks the
/// language to show it in.
package enum CatalogTour {
    /// Published tours only: a tour with no language has nothing to show or walk.
    package static func resolve(_ query: String, in catalog: [TourSummary]) throws(AppError) -> TourSummary {
        let matcher = TourMatcher<TourSummary>(
            id: \.id, slug: \.slug, titles: { Array($0.title.values) },
            label: { "\($0.slug) (\($0.title.best(nil) ?? $0.id))" })
        return try matcher.match(query, in: catalog.filter(\.isPublished))
    }

    /// The language asked for, which the tour must have; else the configured language if the
    /// tour has it; else as the apps fall back: English, then the first.
    package static func language(for tour: TourSummary, requested: String?, settings: Settings) throws(AppError)
        -> String
    {
        if let requested {
            guard tour.languages.contains(requested) else {
                throw AppError.notFound(
                    "\(tour.slug) has no version in '\(requested)' (it has \(tour.languages.joined(separator: ", ")))")
            }
            return requested
        }
        if let configured = settings.language, tour.languages.contains(configured) { return configured }
        if tour.languages.contains("en") { return "en" }
        return tour.languages.sorted().first ?? "en"
    }

    /// free, unlocked or locked: what the walker may do with it.
    package static func access(_ tour: TourSummary) -> String {
        !tour.isProtected ? "free" : tour.hasAccess == true ? "unlocked" : "locked"
    }
}

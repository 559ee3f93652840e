import TourStore

/// Finds an installed tour by id, slug or title in any installed language, with the same rules as
/// the service's catalog (`TourMatcher`).
package enum InstalledTourMatcher {
    package static var matcher: TourMatcher<InstalledTour> {
        TourMatcher(id: \.id, slug: \.slug, titles: \.titles, label: { "\($0.slug) (\($0.title()))" })
    }

    package static func match(_ query: String, in tours: [InstalledTour]) throws(AppError) -> InstalledTour {
        do { return try matcher.match(query, in: tours) } catch {
            if error.kind == .notFound {
                throw AppError.notFound("no installed tour matches '\(query)' (walkscape tours --installed lists them)")
            }
            throw error
        }
    }
}

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
            guard let tag = LanguageTag.match(requested, in: tour.languages) else {
                throw AppError.notFound(
                    "\(tour.slug) has no version in '\(requested)' (it has \(tour.languages.joined(separator: ", ")))")
            }
            return tag
        }
        if let configured = settings.language, let tag = LanguageTag.match(configured, in: tour.languages) {
            return tag
        }
        if tour.languages.contains("en") { return "en" }
        return tour.languages.sorted().first ?? "en"
    }

    /// What `download` says of installed tours of the same slug as `tour` but another id: the
    /// service republished the tour under a new id, or renamed the old one (which `update` follows).
    package static func sameNameNotes(
        for tour: TourSummary, installed: [(id: String, slug: String)], catalog: [TourSummary]
    ) -> [String] {
        installed.filter { $0.slug == tour.slug && $0.id != tour.id }.map { other in
            if let renamed = catalog.first(where: { $0.id == other.id && $0.isPublished }) {
                "another tour named \(other.slug) is installed (id \(other.id)), which the service now publishes as \(renamed.slug); walkscape update renames it"
            } else {
                "another tour named \(other.slug) is installed (id \(other.id)), which the service no longer publishes under that name; walkscape remove \(other.id) deletes it"
            }
        }
    }

    /// free, unlocked or locked: what the walker may do with it.
    package static func access(_ tour: TourSummary) -> String {
        !tour.isProtected ? "free" : tour.hasAccess == true ? "unlocked" : "locked"
    }
}

/// What `update` does with an installed tour, given the service's catalog now: a tour the service
/// renamed, dropped a language of, took down or published again under a new id is still updated
/// as far as it can be, and the walker is told what happened and the way out.
package struct UpdateTarget: Sendable, Equatable {
    /// The languages to update (those the service still has), under the service's slug now.
    package var languages: [String]
    package var slug: String
    package var isProtected: Bool
    /// Said before the update (the tour goes on updating).
    package var notes: [String]
    /// Why it cannot be updated at all (nil: it can).
    package var failure: String?

    package init(
        installedID id: String, slug installedSlug: String, languages installed: [String], isProtected: Bool,
        catalog: [TourSummary]
    ) {
        notes = []
        failure = nil
        guard let summary = catalog.first(where: { $0.id == id }), summary.isPublished else {
            languages = []
            slug = installedSlug
            self.isProtected = isProtected
            if let successor = catalog.first(where: { $0.slug == installedSlug && $0.id != id && $0.isPublished }) {
                failure =
                    "the service now publishes \(installedSlug) as another tour (id \(successor.id)); the installed one stays and still walks, and a walk of it under way goes on (a walk of the new one starts from its first point). To change to it: walkscape remove \(id), then walkscape download \(successor.id)"
            } else {
                failure =
                    "no longer published on the service; the installed version stays and still walks (walkscape remove \(installedSlug) deletes it)"
            }
            return
        }
        slug = summary.slug
        self.isProtected = summary.isProtected
        languages = installed.filter { summary.languages.contains($0) }
        // Said only when the update can go on: a tour that cannot be updated keeps its old name.
        if summary.slug != installedSlug, !languages.isEmpty {
            notes.append(
                "\(installedSlug) is now called \(summary.slug) on the service; it is installed under that name")
        }
        for language in installed where !summary.languages.contains(language) && !languages.isEmpty {
            notes.append(
                "\(summary.slug): '\(language)' is no longer on the service; the installed '\(language)' stays as it was (walkscape remove \(summary.slug) -l \(language) deletes it)"
            )
        }
        if languages.isEmpty {
            failure =
                "no longer on the service in \(installed.map { "'\($0)'" }.joined(separator: ", ")) (it has \(summary.languages.joined(separator: ", "))); walkscape download \(summary.slug) -l LANGUAGE installs another"
        }
    }

    /// The same, for a tour installed from `installedService` while `service` is asked: a failure
    /// then says where it came from, whose catalog may still have it.
    package init(
        installedID id: String, slug: String, languages: [String], isProtected: Bool, catalog: [TourSummary],
        installedFrom installedService: String, asking service: String
    ) {
        self.init(installedID: id, slug: slug, languages: languages, isProtected: isProtected, catalog: catalog)
        if let failure, installedService != service {
            self.failure =
                failure
                + " (it was installed from \(installedService), not \(service): --api-url \(installedService) updates it from there)"
        }
    }
}

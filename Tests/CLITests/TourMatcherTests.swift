import ArgumentParser
import Testing
import TourModel
import WalkscapeKit

@testable import walkscape

/// How a TOUR argument finds a tour of the catalog: id, slug, or title prefix in any language.
struct TourMatcherTests {
    static let catalog = [
        TourSummary(
            id: "3f0c6a52", slug: "bologna-portici", title: ["en": "Porticoes of Bologna", "it": "Portici di Bologna"],
            languages: ["en", "it"]),
        TourSummary(
            id: "9a1b", slug: "milano-notte", title: ["it": "Milano di notte", "en": "Milan by Night"],
            languages: ["it", "en"]),
        TourSummary(id: "77aa", slug: "milano-giorno", title: ["it": "Milano di giorno"], languages: ["it"]),
        TourSummary(id: "c0de", slug: "citta-alta", title: ["it": "Città Alta"], languages: ["it"]),
        TourSummary(id: "dead", slug: "draft", title: ["it": "Bozza"], languages: []),
    ]

    func resolve(_ query: String) throws(AppError) -> String {
        try CatalogTour.resolve(query, in: Self.catalog).slug
    }

    @Test func idSlugAndTitleEachName() throws {
        #expect(try resolve("3F0C6A52") == "bologna-portici")
        #expect(try resolve("milano-notte") == "milano-notte")
        #expect(try resolve("Portici di Bologna") == "bologna-portici")
        #expect(try resolve("milan by") == "milano-notte")
    }

    @Test func caseAndAccentsDoNotMatter() throws {
        #expect(try resolve("CITTA") == "citta-alta")
        #expect(try resolve("città alta") == "citta-alta")
    }

    /// Two tours of the service with one slug: the slug names neither, and the error lists their ids
    /// (the first was taken without a word). An id still names each.
    @Test func aSlugTwoToursShareIsAUsageErrorListingTheirIds() throws {
        let twins =
            Self.catalog + [
                TourSummary(id: "beef", slug: "milano-notte", title: ["it": "Milano, altra notte"], languages: ["it"])
            ]
        #expect {
            try CatalogTour.resolve("Milano-Notte", in: twins)
        } throws: { error in
            let message = (error as? AppError)?.message ?? ""
            return (error as? AppError)?.kind == .usage && message.contains("9a1b") && message.contains("beef")
                && message.contains("by its id")
        }
        #expect(try CatalogTour.resolve("beef", in: twins).id == "beef")
    }

    @Test func anAmbiguousPrefixListsTheCandidatesAsAUsageError() {
        #expect {
            try resolve("Milano di")
        } throws: { error in
            guard let error = error as? AppError else { return false }
            return error.kind == .usage && error.exitCode.rawValue == 64
                && error.message
                    == "'Milano di' could be any of 2 tours: milano-giorno (Milano di giorno), milano-notte (Milan by Night); name one by its slug or id"
        }
    }

    @Test func aFullTitleWinsOverLongerTitlesItPrefixes() throws {
        let catalog =
            Self.catalog + [
                TourSummary(id: "x", slug: "portici-2", title: ["it": "Portici di Bologna II"], languages: ["it"])
            ]
        #expect(try CatalogTour.resolve("portici di bologna", in: catalog).slug == "bologna-portici")
    }

    @Test func unknownAndUnpublishedToursAreNotFound() {
        for query in ["venezia", "draft", "dead", "Bozza"] {
            #expect(throws: AppError.self) { try resolve(query) }
            do { _ = try resolve(query) } catch { #expect(error.kind == .notFound && error.exitCode.rawValue == 66) }
        }
    }

    @Test func theLanguageMustBeOneTheTourHas() throws {
        let settings = try GlobalOptions.parse([]).settings(environment: [
            "WALKSCAPE_HOME": "/nonexistent-walkscape", "WALKSCAPE_LANGUAGE": "it",
        ])
        let bologna = Self.catalog[0]
        #expect(try CatalogTour.language(for: bologna, requested: nil, settings: settings) == "it")
        #expect(try CatalogTour.language(for: bologna, requested: "en", settings: settings) == "en")
        #expect(throws: AppError.self) { try CatalogTour.language(for: bologna, requested: "fr", settings: settings) }
        let english = try GlobalOptions.parse([]).settings(environment: ["WALKSCAPE_HOME": "/nonexistent-walkscape"])
        #expect(try CatalogTour.language(for: Self.catalog[1], requested: nil, settings: english) == "en")
        #expect(try CatalogTour.language(for: Self.catalog[2], requested: nil, settings: english) == "it")
    }
}

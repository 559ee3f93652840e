import ArgumentParser
import Foundation
import TourAPI
import TourModel
import WalkscapeKit

/// `walkscape tours`: the service's catalog, and what the walker may do with each tour.
struct ToursCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tours",
        abstract: "List the tours of the service: title, city, duration, distance, languages, access.",
        discussion: """
            Access is free, unlocked (a voucher of yours opened it) or locked; logged out, every \
            protected tour shows as locked. Titles are in the chosen language, else English, else any. \
            Tours with nothing published are not listed. --installed lists the tours downloaded to this \
            machine instead, without the network.

            Examples:
              walkscape tours
              walkscape tours -l it --city Bologna
              walkscape tours --json
              walkscape tours --installed
            """)

    @OptionGroup var global: GlobalOptions

    @Option(
        name: [.short, .long],
        help: ArgumentHelp("Language of the titles (env: WALKSCAPE_LANGUAGE).", valueName: "code"))
    var language: String?

    @Option(name: .long, help: ArgumentHelp("Only tours in this city.", valueName: "city"))
    var city: String?

    @Flag(name: .long, help: "Print the tours as JSON.")
    var json = false

    @Flag(name: .long, help: "List the tours installed on this machine (no network).")
    var installed = false

    struct Row: Encodable {
        var id: String
        var slug: String
        var title: String
        var titles: [String: String]
        var city: String?
        var durationMinutes: Double?
        var distanceKm: Double?
        var languages: [String]
        var access: String
    }

    func run() async throws {
        let settings = try global.settings()
        if installed {
            return try InstalledToursListing(settings: settings, language: language ?? settings.language, city: city)
                .print(json: json)
        }
        let catalog: [TourSummary]
        do {
            catalog = try await ServiceConnection.run(settings) { client in try await client.tours() }
        } catch let error as AppError where error.kind == .unavailable {
            // Offline is the walker's normal state once tours are downloaded: say where they are.
            throw AppError(
                kind: .unavailable,
                message: "\(error.message) (walkscape tours --installed lists the tours on this machine)")
        }
        let titleLanguage = language ?? settings.language
        var tours = catalog.filter(\.isPublished)
        if let city {
            let wanted = TourMatcher<TourSummary>.fold(city)
            tours = tours.filter { $0.city.map(TourMatcher<TourSummary>.fold) == wanted }
        }
        let rows = tours.map { tour in
            Row(
                id: tour.id, slug: tour.slug, title: tour.title.best(titleLanguage) ?? tour.slug, titles: tour.title,
                city: tour.city, durationMinutes: tour.durationMinutes, distanceKm: tour.distanceKm,
                languages: tour.languages, access: CatalogTour.access(tour))
        }
        if json { return try JSONOutput.write(rows) }
        guard !rows.isEmpty else {
            Console.out(city.map { "No tours in \($0)." } ?? "No tours.")
            return
        }
        var table = TextTable(header: ["TOUR", "TITLE", "CITY", "DURATION", "DISTANCE", "LANGUAGES", "ACCESS"])
        table.rows = rows.map { row in
            [
                row.slug, row.title, row.city ?? "-", Self.minutes(row.durationMinutes),
                Self.kilometres(row.distanceKm),
                row.languages.joined(separator: ","), row.access,
            ]
        }
        Console.out(table.render())
    }

    static func minutes(_ value: Double?) -> String {
        value.map { "\(Int($0.rounded())) min" } ?? "-"
    }

    static func kilometres(_ value: Double?) -> String {
        value.map { String(format: "%.1f km", $0) } ?? "-"
    }
}

import ArgumentParser
import Foundation
import TourAPI
import TourModel
import TourStore
import WalkscapeKit

/// `walkscape show`: one tour of the service in one language, with its points.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a tour of the service: details, bus information, and its points in order with their radii.",
        discussion: """
            TOUR is the tour's id, its slug, or the start of its title in any language (walkscape tours \
            lists them). The points of a locked tour are not shown: unlock it with walkscape redeem CODE.

            Examples:
              walkscape show bologna-portici
              walkscape show "Portici di" -l it
              walkscape show 3f0c6a52-4a8e-4c39-9d3e-0b6f1a2c9e11 --json
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The tour: id, slug, or title prefix.", valueName: "tour"))
    var tour: String

    @Option(
        name: [.short, .long],
        help: ArgumentHelp(
            "Language (default: the configured one if the tour has it, else English).", valueName: "code"))
    var language: String?

    @Flag(name: .long, help: "Print the tour as JSON.")
    var json = false

    struct Report: Encodable {
        struct Point: Encodable {
            var id: String
            var order: Int
            var title: String
            var latitude: Double
            var longitude: Double
            var triggerRadiusMeters: Double
            /// The narration's loudness (LUFS, EBU R128) when this language is installed and
            /// measured here; nil otherwise, or when silent.
            var loudnessLUFS: Double?
        }
        var id: String
        var slug: String
        var language: String
        var languages: [String]
        var title: String
        var description: String
        var city: String?
        var durationMinutes: Double?
        var distanceKm: Double?
        var difficulty: String?
        var busInfo: String?
        var access: String
        var startingPoint: Coordinate?
        /// Nil when the tour is locked.
        var points: [Point]?
    }

    func run() async throws {
        let settings = try global.settings()
        let report = try await ServiceConnection.run(settings) { client in
            let summary = try CatalogTour.resolve(tour, in: try await client.tours())
            let language = try CatalogTour.language(for: summary, requested: language, settings: settings)
            let detail = try await client.tour(summary.id, language: language)
            var points: [TourPoint]?
            do {
                points = try await client.points(ofTour: summary.id, language: language)
            } catch let error as APIError where error.kind == .forbidden {
                points = nil
            }
            return Report(
                id: detail.id, slug: detail.slug, language: language, languages: summary.languages,
                title: detail.title.isEmpty ? summary.title.best(language) ?? summary.slug : detail.title,
                description: detail.description, city: detail.city ?? summary.city,
                durationMinutes: detail.durationMinutes ?? summary.durationMinutes,
                distanceKm: detail.distanceKm ?? summary.distanceKm,
                difficulty: detail.difficulty ?? summary.difficulty,
                busInfo: detail.busInfo ?? summary.busInfo.best(language), access: CatalogTour.access(summary),
                startingPoint: detail.startingPoint,
                points: points?.map {
                    Report.Point(
                        id: $0.id, order: $0.order, title: $0.title, latitude: $0.coordinate.latitude,
                        longitude: $0.coordinate.longitude, triggerRadiusMeters: $0.triggerRadiusMeters)
                })
        }
        if json { return try JSONOutput.write(Self.addingLoudness(report, settings: settings)) }
        Console.out(Self.text(Self.addingLoudness(report, settings: settings)))
    }

    /// Each point's narration loudness where the tour is installed in this language (the catalog
    /// knows it from the download); the service does not say.
    static func addingLoudness(_ report: Report, settings: Settings) -> Report {
        guard let store = try? StoreAccess.openForReading(settings),
            let installed = try? store.installedTour(id: report.id),
            let language = installed.language(report.language)
        else { return report }
        var report = report
        report.points = report.points?.map { point in
            var point = point
            point.loudnessLUFS = language.file(.audio, point: point.id)?.loudness?.integrated.map {
                ($0 * 10).rounded() / 10
            }
            return point
        }
        return report
    }

    static func text(_ r: Report) -> String {
        var lines = [TerminalText.sanitized("\(r.title) (\(r.slug))", keepingNewlines: false)]
        let facts = [
            r.city, r.durationMinutes.map { _ in ToursCommand.minutes(r.durationMinutes) },
            r.distanceKm.map { _ in ToursCommand.kilometres(r.distanceKm) }, r.difficulty, r.access,
        ].compactMap { $0 }
        lines.append(facts.joined(separator: " · "))
        lines.append("id \(r.id) · language \(r.language) (has \(r.languages.joined(separator: ", ")))")
        if !r.description.isEmpty { lines += ["", r.description] }
        if let bus = r.busInfo, !bus.isEmpty { lines += ["", "Getting there: \(bus)"] }
        if let start = r.startingPoint { lines += ["", "Start: \(Self.place(start.latitude, start.longitude))"] }
        lines.append("")
        guard let points = r.points else {
            lines.append("Points: locked; unlock the tour with walkscape redeem CODE.")
            return lines.joined(separator: "\n")
        }
        lines.append("Points (\(points.count)):")
        let loudness = points.contains { $0.loudnessLUFS != nil }
        var table = TextTable(header: ["#", "TITLE", "WHERE", "RADIUS"] + (loudness ? ["LOUDNESS"] : []))
        table.rows = points.map {
            [
                "\($0.order)", $0.title, Self.place($0.latitude, $0.longitude),
                "\(Int($0.triggerRadiusMeters.rounded())) m",
            ] + (loudness ? [$0.loudnessLUFS.map { String(format: "%.1f LUFS", $0) } ?? "-"] : [])
        }
        lines += table.render().split(separator: "\n").map { "  \($0)" }
        return lines.joined(separator: "\n")
    }

    static func place(_ latitude: Double, _ longitude: Double) -> String {
        String(format: "%.5f, %.5f", latitude, longitude)
    }
}

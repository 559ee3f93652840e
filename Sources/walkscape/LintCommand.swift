import ArgumentParser
import Curation
import Foundation
import TourModel
import Walk
import WalkscapeKit

/// `walkscape lint`: the curator's to-do list for a tour folder.
struct LintCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check a tour folder for problems a curator must fix (errors) or should know (warnings).",
        discussion: """
            Checks media (narration in a format walkscape plays that decodes; silent, clipped, far louder \
            or quieter than the rest, with more than 2 s of silence before its sound or 5 s after it, or on one channel of two; readable subtitles and images), narration longer than \
            the walk to the next point at 1.3 m/s, overlapping radii, radii under 20 m or over 150 m, \
            points out of order along the route, duplicate orders and ids, missing languages, and \
            points that the tour's own recorded walks (traces) do not trigger. \
            At most 20 findings of one kind are listed, then counted; --json lists them all. \
            Exits 1 when there are errors; warnings alone exit 0.

            An installed tour (id, slug or title) is checked as the store holds it: its files are \
            named by their file names and the point and language that use them.

            Examples:
              walkscape lint tours/demo
              walkscape lint my-tour --json
              walkscape lint bologna-portici
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp(
            "A tour folder (with tour.json), or an installed tour (id, slug or title).", valueName: "tour"))
    var tour: String

    @Flag(name: .long, help: "Print the findings as JSON.")
    var json = false

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("Walking pace for the narration-length check (m/s).", valueName: "m/s"))
    var walkingSpeed: Double = 1.3

    func validate() throws {
        try Limits.walkingSpeed.check(walkingSpeed, flag: "--walking-speed")
    }

    func run() async throws {
        let tour = TourArgument.folderName(self.tour)
        var lint = TourLint()
        lint.walkingSpeed = walkingSpeed
        let result: TourLint.Result
        switch try resolve() {
        case .folder(let url):
            // Through the loudness cache; a config file that does not read only costs the cache.
            if let settings = try? global.settings() {
                lint.measureLoudness = NarrationLoudness.measurer(installed: false, settings: settings)
                if let target = try? settings.loudness() { lint.loudnessTarget = target }
            }
            result = lint.lint(folder: url)
        case .installed(let resolved):
            let settings = try global.settings()
            lint.measureLoudness = NarrationLoudness.measurer(installed: true, settings: settings)
            if let target = try? settings.loudness() { lint.loudnessTarget = target }
            lint.sharedAudioPerLanguage = true
            // The store's files are named by their hashes: say which file and which point instead.
            let findings = lint.lint(resolved.folder()).map { finding in
                var finding = finding
                if let known = resolved.describeFile(finding.location, language: finding.language) {
                    finding.location = known
                }
                return finding
            }
            result = TourLint.Result(findings: findings)
        }
        if json {
            try JSONOutput.write(result.findings)
        } else {
            for line in result.lines(whereTheRestAre: "--json lists them all") { Console.out(line) }
            Console.out(
                result.findings.isEmpty
                    ? "\(tour): no problems found"
                    : "\(tour): \(result.errors) error\(result.errors == 1 ? "" : "s"), \(result.warnings) warning\(result.warnings == 1 ? "" : "s")"
            )
        }
        if result.errors > 0 { throw ExitCode(1) }
    }

    private enum Target {
        /// A folder is linted as it is, even when the loader refuses it (lint then lists all it can).
        case folder(URL)
        case installed(ResolvedTour)
    }

    /// The tour folder or installed tour TOUR names (`TourArgument`'s rules); a tour folder whose
    /// tour.json does not load is still a folder to lint (lint says everything wrong with it).
    private func resolve() throws -> Target {
        if tour.contains("/") || tour == "." || tour == ".." { return .folder(try TourArgument.folderURL(tour)) }
        let settings = try global.settings()
        let resolved: ResolvedTour
        do { resolved = try TourArgument.resolve(tour, settings: settings) } catch {
            if error.kind == .data, let url = try? TourArgument.folderURL(tour) { return .folder(url) }
            throw error
        }
        if case .installed = resolved { return .installed(resolved) }
        return .folder(try TourArgument.folderURL(tour))
    }
}

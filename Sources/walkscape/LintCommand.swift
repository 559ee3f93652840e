import ArgumentParser
import Foundation
import Walk

/// `walkscape lint`: the curator's to-do list for a tour folder.
struct LintCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check a tour folder for problems a curator must fix (errors) or should know (warnings).",
        discussion: """
        Checks media (real MP3s that decode, readable subtitles and images), narration longer than \
        the walk to the next point at 1.3 m/s, overlapping radii, radii under 20 m or over 150 m, \
        points out of order along the route, duplicate orders and ids, missing languages, and \
        points that the tour's own recorded walks (traces) do not trigger. \
        At most 20 findings of one kind are listed, then counted; --json lists them all. \
        Exits 1 when there are errors; warnings alone exit 0.

        Examples:
          walkscape lint tours/demo
          walkscape lint my-tour --json
        """)

    @Argument(help: ArgumentHelp("The tour folder (with tour.json).", valueName: "tour-folder"))
    var tour: String

    @Flag(name: .long, help: "Print the findings as JSON.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Walking pace for the narration-length check (m/s).", valueName: "m/s"))
    var walkingSpeed: Double = 1.3

    func validate() throws {
        try Limits.walkingSpeed.check(walkingSpeed, flag: "--walking-speed")
    }

    func run() async throws {
        let url = try TourArgument.folderURL(tour)
        let tour = TourArgument.folderName(self.tour)
        var lint = TourLint()
        lint.walkingSpeed = walkingSpeed
        let result = lint.lint(folder: url)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            Console.json(try encoder.encode(result.findings))
        } else {
            for line in result.lines() { Console.out(line) }
            Console.out(result.findings.isEmpty ? "\(tour): no problems found"
                        : "\(tour): \(result.errors) error\(result.errors == 1 ? "" : "s"), \(result.warnings) warning\(result.warnings == 1 ? "" : "s")")
        }
        if result.errors > 0 { throw ExitCode(1) }
    }
}

import ArgumentParser
import Foundation
import Positioning
import TourModel
import Walk

/// `walkscape map`: the tour (and a recorded walk through it) as an SVG.
struct MapCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "map",
        abstract: "Draw a tour as an SVG map: route, numbered points and radii, a trace coloured by accuracy, triggers.",
        discussion: """
        With --trace, the walk is previewed first (as `preview --fast` does) so the map shows where \
        each point triggered; fixes the filter ignored are drawn as red crosses.

        Examples:
          walkscape map tours/demo -o demo.svg
          walkscape map tours/demo --trace tours/demo/traces/walk.nmea -o walk.svg
        """)

    @Argument(help: ArgumentHelp("The tour folder (with tour.json).", valueName: "tour-folder"))
    var tour: String

    @Option(name: .long, help: ArgumentHelp("A recorded walk to draw, NMEA 0183 or GPX.", valueName: "file"))
    var trace: String?

    @Option(name: [.short, .long], help: ArgumentHelp("Language of the titles (default: the tour's default).", valueName: "code"))
    var language: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the SVG.", valueName: "map.svg"))
    var output: String

    @Option(name: .long, help: ArgumentHelp("Width of the picture in pixels.", valueName: "px"))
    var width: Int = 1000

    /// More fixes than this are thinned evenly: a screen has no room for them, a browser no patience.
    static let maxDrawnFixes = 20_000

    func validate() throws {
        try Limits.mapWidth.check(width, flag: "--width")
        if output.isEmpty { throw ValidationError("-o needs a file name") }
    }

    func run() async throws {
        let folder = try TourArgument.folder(tour)
        let playable: PlayableTour
        do { playable = try folder.playable(language: language) } catch { throw CLIError.usage(error.message) }
        var map = TourMap(tour: playable)
        map.width = Double(width)
        if let trace {
            let url = try PreviewCommand.traceURL(trace, in: folder)
            let file: TraceFile
            do { file = try TraceFile(url: url) } catch { throw CLIError.data(error.message) }
            let policy = WalkPolicy()
            map.report = WalkSimulation(tour: playable, policy: policy,
                                        narrations: WalkSimulation.probeNarrations(of: playable)).run(fixes: file.fixes())
            var filter = FixFilter(configuration: policy.filterConfiguration)
            var accepted: [Fix] = []
            var ignored: [Fix] = []
            for fix in file.fixes() {
                if filter.evaluate(fix) == .accepted { accepted.append(fix) } else if fix.mode >= .twoD { ignored.append(fix) }
            }
            if accepted.isEmpty { throw CLIError.data("\(url.path): no usable position in this trace") }
            if accepted.count > Self.maxDrawnFixes {
                let stride = (accepted.count + Self.maxDrawnFixes - 1) / Self.maxDrawnFixes
                accepted = accepted.enumerated().filter { $0.offset % stride == 0 || $0.offset == accepted.count - 1 }.map(\.element)
            }
            map.fixes = accepted
            map.ignored = Array(ignored.prefix(1000))
        }
        let svg = map.svg()
        do {
            try Data(svg.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw CLIError.failure("\(output): cannot write (\(error.localizedDescription))")
        }
        print("wrote \(output) (\(svg.utf8.count / 1024) KB)")
    }
}

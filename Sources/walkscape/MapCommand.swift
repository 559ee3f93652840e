import ArgumentParser
import Curation
import FileAccess
import Foundation
import Positioning
import TourModel
import Walk
import WalkRuntime
import WalkscapeKit

/// `walkscape map`: the tour (and a recorded walk through it) as an SVG.
struct MapCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "map",
        abstract:
            "Draw a tour as an SVG map: route, numbered points and radii, a trace coloured by accuracy, triggers.",
        discussion: """
            With --trace, the walk is previewed first (as `preview --fast` does) so the map shows where \
            each point triggered; fixes the filter ignored are drawn as red crosses. A long trace is \
            thinned to 20,000 drawn fixes. -o - writes the SVG to standard output; an existing file is \
            replaced only once the whole map is written, and a FIFO or device is written through.

            Examples:
              walkscape map tours/demo -o demo.svg
              walkscape map tours/demo --trace tours/demo/traces/walk.nmea -o walk.svg
              walkscape map tours/demo -o - | rsvg-convert -o demo.png
              walkscape map bologna-portici -o portici.svg     (an installed tour)
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp(
            "A tour folder (with tour.json), or an installed tour (id, slug or title).", valueName: "tour"))
    var tour: String

    @Option(name: .long, help: ArgumentHelp("A recorded walk to draw, NMEA 0183 or GPX.", valueName: "file"))
    var trace: String?

    @Option(
        name: [.short, .long],
        help: ArgumentHelp("Language of the titles (default: the tour's default).", valueName: "code"))
    var language: String?

    @Option(
        name: .shortAndLong, help: ArgumentHelp("Where to write the SVG (- for standard output).", valueName: "map.svg")
    )
    var output: String

    @Option(
        name: .long, parsing: .unconditional, help: ArgumentHelp("Width of the picture in pixels.", valueName: "px"))
    var width: Int = 1000

    func validate() throws {
        try Limits.mapWidth.check(width, flag: "--width")
        if output.isEmpty { throw ValidationError("-o needs a file name") }
    }

    func run() async throws {
        let output = OutputFile(self.output)
        // A name that cannot be written is refused before any work; nothing is touched yet.
        do throws(FileAccessError) { try output.check() } catch {
            throw AppError.failure("\(self.output): cannot write (\(error.reason))")
        }
        let settings = try global.settings()
        let resolved = try TourArgument.resolve(tour, settings: settings)
        let folder = resolved.folder(language: language)
        let playable: PlayableTour
        if case .installed = resolved {
            playable = try resolved.playable(language: language, settings: settings)
        } else {
            do { playable = try folder.playable(language: language) } catch { throw AppError.usage(error.message) }
        }
        var map = TourMap(tour: playable)
        map.width = Double(width)
        if let trace {
            let url = try PreviewCommand.traceURL(trace, in: folder)
            let file: TraceFile
            do { file = try TraceFile(url: url) } catch { throw AppError.data(error.message) }
            let policy = WalkPolicy()
            map.report = WalkSimulation(
                tour: playable, policy: policy,
                narrations: WalkSimulation.probeNarrations(of: playable)
            ).run(fixes: file.fixes())
            map.draw(fixes: file.fixes(), filter: policy.filterConfiguration)
            if map.trace.isEmpty {
                let why = file.statistics.map { " (\($0.unusedSummary))" } ?? ""
                throw AppError.data("\(url.path): no usable position in this trace\(why)")
            }
        }
        let svg = Data(map.svg().utf8)
        do throws(FileAccessError) {
            try output.write(svg)
            try output.commit()
        } catch {
            output.discard()
            throw AppError.failure("\(self.output): cannot write (\(error.reason))")
        }
        // With -o -, standard output is the SVG's alone.
        if !output.isStandardOutput { Console.out("wrote \(self.output) (\(svg.count / 1024) KB)") }
    }
}

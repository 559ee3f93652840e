import ArgumentParser
import Foundation
import Positioning
import WalkscapeKit

/// `walkscape trace FILE`: the curator's first look at a recording before previewing with it.
struct TraceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Summarise an NMEA or GPX trace: duration, fixes, unusable sentences, distance, bounds, accuracy.",
        discussion: """
            The format is detected from the content, not the file name. Fixes go through the same \
            quality filter as a walk (mode 2D or better, error estimate within --max-error, time \
            moving forward, no impossible jumps); distance and bounds count accepted fixes only. \
            A trace without a single accepted fix is reported (exit 65) after its summary.

            Examples:
              walkscape trace tours/demo/traces/walk.nmea
              walkscape trace walk.gpx --json
            """)

    @Argument(help: ArgumentHelp("The trace file (NMEA 0183 or GPX).", valueName: "file"))
    var file: String

    @Flag(name: .long, help: "Print the summary as JSON.")
    var json = false

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("Largest horizontal error estimate a fix may have, in metres.", valueName: "metres"))
    var maxError: Double = FixFilter.Configuration.default.maxHorizontalError

    func validate() throws {
        // An empty name is no file (it was read as the current folder: "is a folder, not a file").
        if file.isEmpty { throw ValidationError("an empty name is no trace file") }
        try Limits.maxError.check(maxError, flag: "--max-error")
    }

    func run() async throws {
        let trace: TraceFile
        do {
            trace = try TraceFile(url: URL(fileURLWithPath: file))
        } catch {
            // Not there is not found, as for `preview --trace`; there but not a trace (a FIFO, a
            // device, unreadable) is bad data.
            throw FileManager.default.fileExists(atPath: file)
                ? AppError.data(error.message) : AppError.notFound(error.message)
        }
        let summary = TraceSummary(file: trace, filter: .init(maxHorizontalError: maxError))
        if json {
            try JSONOutput.write(summary)
        } else {
            Console.out(summary.text)
        }
        if let readError = summary.readError { throw AppError.data("\(file): \(readError)") }
        // Nothing to preview or walk with: say so in the exit status, not only in the summary.
        if summary.acceptedFixes == 0 {
            let why = summary.fixes == 0 ? "no usable position in this trace" : "no fix passes the quality filter"
            var detail = "\(summary.records) \(summary.format == .nmea ? "sentences" : "points") read"
            if summary.fixes == 0, !summary.rejectedRecords.isEmpty {
                var statistics = TraceStatistics(format: summary.format)
                statistics.records = summary.records
                statistics.rejected = summary.rejectedRecords
                detail = statistics.unusedSummary
            }
            throw AppError.data("\(file): \(why) (\(detail))")
        }
    }
}

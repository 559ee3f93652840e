import ArgumentParser
import Foundation
import TourStore
import WalkscapeKit

/// `walkscape gc`: the store's unused files deleted.
struct GCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Delete files no installed tour uses, and the part files of interrupted downloads.",
        discussion: """
            update and remove already free what they leave unused; gc also drops interrupted downloads \
            (which the next download would otherwise resume) and files the catalog does not know.

            Examples:
              walkscape gc
              walkscape gc --json
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    struct Report: Encodable {
        var blobsRemoved: Int
        var bytesFreed: Int64
        var partialDownloadsRemoved: Int
        var partialBytesFreed: Int64
    }

    func run() async throws {
        let settings = try global.settings()
        guard try StoreAccess.openForReading(settings) != nil else {
            if json {
                return try JSONOutput.write(
                    Report(blobsRemoved: 0, bytesFreed: 0, partialDownloadsRemoved: 0, partialBytesFreed: 0))
            }
            Console.out("Nothing to collect: no tour has been downloaded.")
            return
        }
        let (store, lock, freeing) = try StoreAccess.openForFreeing(settings, purpose: "gc")
        defer {
            freeing.finish()
            lock.release()
        }
        let report: CollectionReport
        do {
            report = try freeing.run { () throws(StoreError) in
                try store.collectGarbage(partials: true)
            }
        } catch { throw AppError(error) }
        if json {
            return try JSONOutput.write(
                Report(
                    blobsRemoved: report.blobsRemoved, bytesFreed: report.bytesFreed,
                    partialDownloadsRemoved: report.partsRemoved,
                    partialBytesFreed: report.partBytesFreed))
        }
        Console.out(
            "Freed \(ByteCount.format(report.bytesFreed + report.partBytesFreed)): \(report.blobsRemoved) unused file\(report.blobsRemoved == 1 ? "" : "s"), \(report.partsRemoved) interrupted download\(report.partsRemoved == 1 ? "" : "s")."
        )
    }
}

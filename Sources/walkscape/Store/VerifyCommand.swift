import ArgumentParser
import Foundation
import TourAPI
import TourStore
import WalkscapeKit

/// `walkscape verify`: every installed file re-hashed against its name.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract:
            "Check installed tours: re-hash every file against its SHA-256 and check the catalog; --repair downloads what is damaged or missing.",
        discussion: """
            Exits 0 when everything is sound, 65 when something is damaged or missing (each named). \
            --repair downloads the tours that need them again (from the service's current version of \
            each, if it changed meanwhile), each damaged file fetched anew and put in its place: until \
            then it stays, and plays as well as it can.

            Examples:
              walkscape verify
              walkscape verify bologna-portici --repair
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp(
            "An installed tour: id, slug, or title prefix (default: the whole store).", valueName: "tour"))
    var tour: String?

    @Flag(name: .long, help: "Download again what is damaged or missing.")
    var repair = false

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    struct Report: Encodable {
        var blobsChecked: Int
        var bytesChecked: Int64
        var catalog: String
        var problems: [String]
        var unusedBlobs: Int
        var unusedBytes: Int64
        var repaired: [String]?
    }

    func run() async throws {
        let settings = try global.settings()
        guard var store = try StoreAccess.openForReading(settings) else {
            if tour != nil {
                throw AppError.notFound("no installed tour matches '\(tour!)': no tour has been downloaded")
            }
            if json {
                return try JSONOutput.write(
                    Report(
                        blobsChecked: 0, bytesChecked: 0, catalog: "none", problems: [], unusedBlobs: 0, unusedBytes: 0)
                )
            }
            Console.out("Nothing to verify: no tour has been downloaded.")
            return
        }
        // A repair changes the store: it takes the lock.
        var lock: StoreLock?
        if repair { (store, lock) = try StoreAccess.openForChange(settings, purpose: "verify --repair") }
        defer { lock?.release() }
        var ids: [String]?
        if let tour {
            do { ids = [try InstalledTourMatcher.match(tour, in: try store.installedTours()).id] } catch let error
                as StoreError
            {
                throw AppError(error)
            }
        }
        var report: VerifyReport
        do { report = try store.verify(tourIDs: ids) } catch { throw AppError(error) }
        var repaired: [String]?
        if repair, !report.problems.isEmpty {
            repaired = try await self.repair(report, store: store, settings: settings)
            do { report = try store.verify(tourIDs: ids) } catch { throw AppError(error) }
        }
        if json {
            try JSONOutput.write(
                Report(
                    blobsChecked: report.blobsChecked, bytesChecked: report.bytesChecked,
                    catalog: report.catalogCheck, problems: report.problems.map(\.description),
                    unusedBlobs: report.unusedBlobs, unusedBytes: report.unusedBytes, repaired: repaired))
        } else {
            Console.out(
                "Checked \(report.blobsChecked) file\(report.blobsChecked == 1 ? "" : "s") (\(ByteCount.format(report.bytesChecked))); catalog: \(report.catalogCheck)."
            )
            for problem in report.problems { Console.out("damaged: \(problem.description)") }
            if report.unusedBlobs > 0 {
                Console.out(
                    "\(report.unusedBlobs) file\(report.unusedBlobs == 1 ? "" : "s") (\(ByteCount.format(report.unusedBytes))) no installed tour uses: walkscape gc frees them."
                )
            }
        }
        guard report.isClean else {
            let hint = repair ? "" : "; walkscape verify --repair downloads them again"
            throw AppError.data(
                "\(report.problems.count) damaged or missing file\(report.problems.count == 1 ? "" : "s")\(report.catalogCheck == "ok" ? "" : ", catalog: \(report.catalogCheck)")\(hint)"
            )
        }
    }

    /// Downloads the installations that use damaged or missing files again, the damaged ones
    /// fetched anew though present.
    private func repair(_ report: VerifyReport, store: TourStore, settings: Settings) async throws -> [String] {
        // A damaged file is fetched again and replaced, not deleted first: it may still play (a few
        // bytes of bit rot), and a repair that cannot reach the service left the point silent.
        let damaged = Set(report.problems.filter { $0.issue != .missing }.map(\.sha256))
        var byTour: [String: Set<String>] = [:]
        for problem in report.problems {
            for installation in problem.installations {
                byTour[installation.tourID, default: []].insert(installation.language)
            }
        }
        let tours: [InstalledTour]
        do { tours = try store.installedTours() } catch { throw AppError(error) }
        let reporter = DownloadReporter(mode: json ? .silent : DownloadReporter.mode(json: false))
        let targets = tours.compactMap { tour in byTour[tour.id].map { (tour, $0.sorted()) } }
        try await Interruptible.run(onStop: {
            reporter.stopped(command: ["walkscape", "verify", "--repair"], keptBytes: reporter.keptBytes)
        }) {
            try await ServiceConnection.run(settings, notices: reporter.warn) { client in
                // A file two tours share is fetched for the first and is whole for the second.
                var stillDamaged = damaged
                for (tour, languages) in targets {
                    var installation = TourInstallation(settings: settings, store: store, reporter: reporter)
                    installation.refetch = stillDamaged.intersection(tour.languages.flatMap(\.files).map(\.sha256))
                    do {
                        try await installation.run(
                            client: client, tourID: tour.id, slug: tour.slug,
                            isProtected: tour.isProtected, languages: languages)
                        stillDamaged.subtract(installation.refetch)
                    } catch {
                        // The progress stops before the error is said.
                        reporter.failed((error as? AppError)?.message ?? "\(error)")
                        throw error
                    }
                }
            }
        }
        try StoreCleanup.afterSwitch(store, reporter: nil)
        return targets.map(\.0.slug)
    }
}

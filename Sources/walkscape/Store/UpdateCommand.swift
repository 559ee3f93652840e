import ArgumentParser
import Foundation
import TourAPI
import TourStore
import WalkscapeKit

/// `walkscape update`: installed tours brought to what the service publishes now.
struct UpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract:
            "Bring installed tours up to date: fetch only what changed, switch atomically, free what is no longer used.",
        discussion: """
            A tour counts as changed when its texts, its points or its files differ from the installed \
            version, even if the service's version number did not change (a file is known by its URL \
            without the signature and its size). Only files the store lacks are fetched. Each tour \
            switches in one step; then files no installed version uses are deleted. Without TOUR, every \
            installed tour and language is checked.

            Examples:
              walkscape update
              walkscape update bologna-portici --json
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("An installed tour: id, slug, or title prefix (default: all).", valueName: "tour"))
    var tour: String?

    @Flag(name: .long, help: "Print progress as JSON, one object per line.")
    var json = false

    func run() async throws {
        let settings = try global.settings()
        let reporter = DownloadReporter(mode: DownloadReporter.mode(json: json))
        let (store, lock) = try StoreAccess.openForChange(settings, purpose: "update")
        defer { lock.release() }
        let installed: [InstalledTour]
        do { installed = try store.installedTours() } catch { throw AppError(error) }
        let targets = try tour.map { [try InstalledTourMatcher.match($0, in: installed)] } ?? installed
        guard !targets.isEmpty else {
            reporter.note("No tours installed (walkscape download TOUR installs one).")
            return
        }
        let command = ["walkscape", "update"] + (tour.map { [$0] } ?? [])
        let failures = try await Interruptible.run(onStop: {
            reporter.stopped(command: command, keptBytes: reporter.keptBytes)
        }) { () async throws -> [AppError] in
            try await ServiceConnection.run(settings, notices: reporter.warn) { client in
                // What the service publishes now: a tour renamed, taken down, or without a language.
                let catalog = try await client.tours()
                var failures: [AppError] = []
                for installed in targets {
                    do {
                        let target = UpdateTarget(
                            installedID: installed.id, slug: installed.slug, languages: installed.languageCodes,
                            isProtected: installed.isProtected, catalog: catalog, installedFrom: installed.service,
                            asking: StoreAccess.serviceKey(client.service))
                        for note in target.notes { reporter.warn(note) }
                        if let failure = target.failure {
                            throw AppError.notFound(failure)
                        }
                        let installation = TourInstallation(settings: settings, store: store, reporter: reporter)
                        try await installation.run(
                            client: client, tourID: installed.id, slug: target.slug,
                            isProtected: target.isProtected, languages: target.languages)
                    } catch let error as AppError {
                        if Task.isCancelled { throw error }
                        // One tour's failure does not keep the others from updating.
                        // Named once: a message may begin with the tour's name already.
                        let said = error.namesItsSubject ? error.message : "\(installed.slug): \(error.message)"
                        reporter.failed(said)
                        Console.err("walkscape: \(said)")
                        failures.append(error)
                    }
                }
                return failures
            }
        }
        try StoreCleanup.afterSwitch(store, reporter: reporter)
        if let first = failures.first {
            throw AppError(
                kind: first.kind,
                message: failures.count == 1
                    ? "1 tour could not be updated" : "\(failures.count) tours could not be updated")
        }
    }
}

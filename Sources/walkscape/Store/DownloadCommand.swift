import ArgumentParser
import Foundation
import TourAPI
import TourModel
import TourStore
import WalkscapeKit

/// `walkscape download`: a tour of the service into the store, to walk offline.
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download a tour to walk it offline: narration, subtitles and images, installed atomically.",
        discussion: """
            TOUR is the tour's id, slug, or the start of its title (walkscape tours lists them). Files \
            already in the store (from another tour or language) are not fetched again; up to 4 files \
            download at once. Ctrl-C stops cleanly and the next download resumes where it stopped, \
            also after a crash. The tour switches to the new version only once every file is in: \
            until then it plays the version it had. A locked tour needs a voucher first.

            Examples:
              walkscape download bologna-portici
              walkscape download bologna-portici -l it -l en
              walkscape download "Portici di" --json
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The tour: id, slug, or title prefix.", valueName: "tour"))
    var tour: String

    @Option(
        name: [.short, .long],
        help: ArgumentHelp(
            "A language to download; repeat for several (default: the configured one if the tour has it, else English).",
            valueName: "code"))
    var language: [String] = []

    @Flag(name: .long, help: "Print progress as JSON, one object per line.")
    var json = false

    func run() async throws {
        let settings = try global.settings()
        let reporter = DownloadReporter(mode: DownloadReporter.mode(json: json))
        let lock = try StoreAccess.lockForChange(settings, purpose: "download \(tour)")
        defer { lock.release() }
        let (tour, language) = (self.tour, self.language)
        do {
            try await Interruptible.run(onStop: {
                // The same languages, or the next run fetches the default one only.
                reporter.stopped(
                    command: ["walkscape", "download", tour] + language.flatMap { ["-l", $0] },
                    keptBytes: reporter.keptBytes)
            }) {
                try await ServiceConnection.run(settings, notices: reporter.warn) { client in
                    // The catalog is asked for while the store opens (is made, the first time).
                    async let catalogAnswer = client.persistent.tours()
                    let store = try StoreAccess.openLocked(settings)
                    let catalog = try await catalogAnswer
                    let summary = try CatalogTour.resolve(tour, in: catalog)
                    try Self.checkAccess(summary)
                    var languages: [String] = []
                    for requested in language.isEmpty ? [nil] : language.map(Optional.some) {
                        languages.append(
                            try CatalogTour.language(for: summary, requested: requested, settings: settings))
                    }
                    // The service published the tour again under a new id: the old one stays
                    // installed under the same name until removed.
                    let installed = ((try? store.installedTours()) ?? []).map { (id: $0.id, slug: $0.slug) }
                    for note in CatalogTour.sameNameNotes(for: summary, installed: installed, catalog: catalog) {
                        reporter.warn(note)
                    }
                    let installation = TourInstallation(settings: settings, store: store, reporter: reporter)
                    _ = try await installation.run(
                        client: client, tourID: summary.id, slug: summary.slug,
                        isProtected: summary.isProtected, languages: languages)
                    // Everything the download records is recorded: its analytics go beside the
                    // clean-up and the closing of the connections.
                    AnalyticsAfterCommand.beginEarly(self)
                    // A version replaced: the files only it used go now. Collected even when
                    // nothing changed: a clean-up killed half-way left files nothing uses.
                    try StoreCleanup.afterSwitch(store, reporter: reporter)
                }
            }
        } catch let error as AppError {
            reporter.failed(error.message)
            throw error
        }
    }

    /// A protected tour the walker may not download says how to unlock it, before anything else.
    static func checkAccess(_ tour: TourSummary) throws(AppError) {
        guard tour.isProtected, tour.hasAccess != true else { return }
        let title = tour.title.best(nil) ?? tour.slug
        if tour.hasAccess == nil {
            throw AppError(
                kind: .noPermission,
                message:
                    "\(title) is protected: log in (walkscape login), unlock it with a voucher (walkscape redeem CODE), then download it"
            )
        }
        throw AppError(
            kind: .noPermission,
            message: "\(title) is locked: unlock it with a voucher (walkscape redeem CODE), then download it")
    }
}

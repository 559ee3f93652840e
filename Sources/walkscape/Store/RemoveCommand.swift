import ArgumentParser
import Foundation
import TourStore
import WalkscapeKit

/// `walkscape remove`: an installed tour (or some of its languages) off this machine.
struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove an installed tour, or some of its languages, and free the files nothing else uses.",
        discussion: """
            Files another installed tour or language shares stay. Walk progress is kept.

            Examples:
              walkscape remove bologna-portici
              walkscape remove bologna-portici -l it
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp("An installed tour: id, slug, or title prefix.", valueName: "tour"),
        completion: .custom { words, _, prefix in TourCompletion.tours(words: words, prefix: prefix, folders: false) })
    var tour: String

    @Option(
        name: [.short, .long], help: ArgumentHelp("Remove only this language; repeat for several.", valueName: "code"),
        completion: .custom { words, _, prefix in TourCompletion.languages(words: words, prefix: prefix) })
    var language: [String] = []

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    struct Report: Encodable {
        var tour: String
        var slug: String
        var removedLanguages: [String]
        var remainingLanguages: [String]
        var bytesFreed: Int64
    }

    func run() async throws {
        let settings = try global.settings()
        let (store, lock, freeing) = try StoreAccess.openForFreeing(settings, purpose: "remove \(tour)")
        defer {
            freeing.finish()
            lock.release()
        }
        let installed: InstalledTour
        do { installed = try InstalledTourMatcher.match(tour, in: try store.installedTours()) } catch let error
            as StoreError
        {
            throw AppError(error)
        }
        for code in language where installed.language(code) == nil {
            throw AppError.notFound(
                "\(installed.slug) is not installed in '\(code)' (it is in \(installed.languageCodes.joined(separator: ", ")))"
            )
        }
        // As installed: `-l EN` removes `en`.
        let language = language.compactMap { installed.language($0)?.language }
        let events = StoreEvents(settings: settings)
        events.beforeForgettingTours()
        let removed: [String]
        let freed: CollectionReport
        do {
            removed = try freeing.run { () throws(StoreError) in
                try store.remove(tourID: installed.id, languages: language.isEmpty ? nil : language)
            }
            // Recorded once the catalog has the removal, before its files go: a kill while they
            // were deleted (hundreds of files, tens of milliseconds) lost the event.
            events.deleted(tourID: installed.id, service: installed.service, languages: removed)
            freed = try freeing.run { () throws(StoreError) in
                try store.collectGarbage(partials: false)
            }
        } catch {
            throw AppError(error)
        }
        let remaining = installed.languageCodes.filter { !removed.contains($0) }
        if json {
            return try JSONOutput.write(
                Report(
                    tour: installed.id, slug: installed.slug, removedLanguages: removed,
                    remainingLanguages: remaining, bytesFreed: freed.bytesFreed))
        }
        let what = remaining.isEmpty ? installed.title() : "\(installed.title()) in \(removed.joined(separator: ", "))"
        Console.out(
            "Removed \(what); freed \(ByteCount.format(freed.bytesFreed))."
                + (remaining.isEmpty ? "" : " Still installed in \(remaining.joined(separator: ", "))."))
    }
}

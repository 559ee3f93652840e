import FileAccess
import Foundation
import TourModel
import TourStore

/// How `walk`, `preview`, `map` and `lint` turn their TOUR argument into a tour: a tour folder on
/// disk, or a tour installed in the store (by id, slug or title). No network, ever: walking
/// offline is the default, not a mode.
///
/// The rules, in one place:
/// 1. A name that is a path (it holds a `/`, or is `.` or `..`) names a folder and nothing else.
/// 2. Otherwise the name may be a tour folder in the working folder, or match installed tours as
///    the catalog does (`TourMatcher`: id, then slug, then a title, then a title prefix, in any
///    installed language; several matches list them).
/// 3. Both a tour folder and an installed tour: ambiguous, refused with how to say which
///    (`./NAME` for the folder, the id for the installed tour). Only one: that one.
/// 4. Neither: not found, naming both places looked at.
package enum TourArgument {
    package static func resolve(_ name: String, settings: Settings) throws(AppError) -> ResolvedTour {
        let url = URL(fileURLWithPath: name)
        if name.contains("/") || name == "." || name == ".." {
            return .folder(try folder(name))
        }
        let isFolder = TourFolder.isTourFolder(url)
        var installed: InstalledTour?
        if let store = try StoreAccess.openForReading(settings) {
            let tours: [InstalledTour]
            do { tours = try store.installedTours() } catch { throw AppError(error) }
            do { installed = try InstalledTourMatcher.match(name, in: tours) } catch  where error.kind == .notFound {
                installed = nil
            }
        }
        switch (isFolder, installed) {
        case (true, let tour?):
            throw AppError.usage(
                "'\(name)' is both a tour folder here and the installed tour \(tour.slug): write ./\(name) for the folder, or \(tour.id) for the installed tour"
            )
        case (true, nil):
            return .folder(try folder(name))
        case (false, let tour?):
            return .installed(tour)
        case (false, nil):
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
                return .folder(try folder(name))
            }
            try refuseBrokenLink(name)
            throw AppError.notFound(
                "no tour folder or installed tour named '\(name)' (walkscape tours --installed lists the installed ones)"
            )
        }
    }

    /// The folder a TOUR argument names: the folder itself, or its `tour.json` (what a shell's
    /// completion or a curator's editor hands over as often as the folder).
    package static func folderURL(_ path: String) throws(AppError) -> URL {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            // A link that leads nowhere is said as such, not as a folder that is not there.
            try refuseBrokenLink(path)
            throw AppError.notFound("\(path): no such tour folder")
        }
        if isDirectory.boolValue {
            guard TourFolder.isTourFolder(url) else {
                try refuseBrokenLink((path as NSString).appendingPathComponent(TourFolder.manifestName))
                throw AppError.usage("\(path): not a tour folder (no tour.json)")
            }
            return url
        }
        guard url.lastPathComponent == TourFolder.manifestName else {
            throw AppError.usage("\(path): a file, not a tour folder (name the folder that holds tour.json)")
        }
        return url.deletingLastPathComponent()
    }

    /// Throws when `path`, or a folder on its way, is a symbolic link that cannot be followed: one
    /// whose target is not there is not found (66), naming the target; one in a loop is a usage
    /// error (64).
    private static func refuseBrokenLink(_ path: String) throws(AppError) {
        guard let (name, code) = FileAccessError.firstUnreachable(along: path),
            let target = FileAccessError.brokenLink(name)
        else { return }
        // ENOTDIR: the target runs through a file; not there either way.
        guard code == ENOENT || code == ENOTDIR else {
            throw AppError.usage(FileAccessError(path: name, errno: code).message)
        }
        throw AppError.notFound(FileAccessError(path: name, cause: .danglingLink(target)).message)
    }

    /// The argument as the folder's name in messages: `tours/demo` for `tours/demo/tour.json`.
    package static func folderName(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        guard url.lastPathComponent == TourFolder.manifestName, !url.hasDirectoryPath else { return path }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return path
        }
        let parent = (path as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }

    package static func folder(_ path: String) throws(AppError) -> TourFolder {
        let url = try folderURL(path)
        do { return try TourFolder.load(from: url) } catch {
            throw AppError.data("\(folderName(path))/\(error.message)")
        }
    }

    /// The tour in the language asked for: the flag, else the configured language if the tour has
    /// it, else the tour's default.
    package static func playable(_ folder: TourFolder, language: String?, settings: Settings) throws(AppError)
        -> PlayableTour
    {
        let configured = settings.language.flatMap { LanguageTag.match($0, in: folder.languageInfo.keys) }
        do { return try folder.playable(language: language ?? configured) } catch {
            throw AppError.usage(error.message)
        }
    }
}

/// A TOUR argument, resolved.
package enum ResolvedTour {
    case folder(TourFolder)
    case installed(InstalledTour)

    /// As a tour folder: the real one, or the store's view of the installed tour (its files are
    /// the blobs).
    package func folder(language: String? = nil) -> TourFolder {
        switch self {
        case .folder(let folder): folder
        case .installed(let tour): tour.folder(defaultLanguage: language)
        }
    }

    /// The tour in one language, as the walk core plays it. For an installed tour: the language
    /// asked for (which must be installed), else the configured one if installed, else English,
    /// else the first installed; narration that does not play is left out (announced instead).
    package func playable(language: String?, settings: Settings) throws(AppError) -> PlayableTour {
        switch self {
        case .folder(let folder):
            return try TourArgument.playable(folder, language: language, settings: settings)
        case .installed(let tour):
            do {
                return try tour.playable(
                    language: pickLanguage(language, settings: settings), recheck: StoreAccess.narrationProblem)
            } catch {
                throw error.kind == .notFound
                    ? AppError.usage(error.message + AppError.advice(error.remedy)) : AppError(error)
            }
        }
    }

    package func pickLanguage(_ requested: String?, settings: Settings) -> String {
        guard case .installed(let tour) = self else { return requested ?? "" }
        if let requested { return requested }
        if let configured = settings.language, let installed = tour.language(configured) { return installed.language }
        return tour.language("en") != nil ? "en" : tour.languageCodes.first ?? "en"
    }

    /// Lines that tell a walker which points of an installed tour will be announced rather than
    /// played (their narration does not play).
    package func unplayableNotes(language: String?, settings: Settings) -> [String] {
        guard case .installed(let tour) = self else { return [] }
        let code = pickLanguage(language, settings: settings)
        return tour.unplayableAudio(language: code, recheck: StoreAccess.narrationProblem).map { point, problem in
            "note: point \(point.order) (\(point.title)): its narration does not play (\(problem)); it is announced instead of played"
        }
    }

    /// Names a blob file of an installed tour as a person knows it (`02.mp3, narration of point 2
    /// in 'it'`); nil for anything else.
    package func describeFile(_ location: String, language wanted: String? = nil) -> String? {
        guard case .installed(let tour) = self else { return nil }
        // The file of the language the finding is about first: languages may share a stored file.
        let languages =
            tour.languages.filter { $0.language == wanted } + tour.languages.filter { $0.language != wanted }
        for language in languages {
            for file in language.files where file.sha256 == location {
                let point = file.pointID.flatMap { id in language.points.first { $0.id == id } }
                return
                    "\(file.identity.fileName) (\(file.role.noun) of \(point.map { "point \($0.order)" } ?? "the tour") in '\(language.language)')"
            }
        }
        return nil
    }
}

import Foundation
import TourStore

/// What Tab offers after `walkscape walk`, `preview` and `remove` (the shells call the program with
/// the words typed so far): installed tours by slug, tour folders by path, and the languages of the
/// tour already named. Reads the catalog read-only and nothing else: a completion never writes.
package enum TourCompletion {
    /// Installed tours' slugs starting with `prefix`, then (when `folders`) folders beside the typed
    /// path that hold a tour.json.
    package static func tours(
        words: [String], prefix: String, folders: Bool,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [String] {
        let slugs = TourStore.installedNames(location(words: words, environment: environment)).map(\.slug)
            .filter { $0.hasPrefix(prefix) }
        return folders ? slugs + tourFolders(prefix: prefix) : slugs
    }

    /// The languages of the installed tour named in `words` (its slug as typed), or of every
    /// installed tour when none is named yet.
    package static func languages(
        words: [String], prefix: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [String] {
        let names = TourStore.installedNames(location(words: words, environment: environment))
        let named = names.filter { words.contains($0.slug) }
        let languages = Set((named.isEmpty ? names : named).flatMap(\.languages))
        return languages.filter { $0.hasPrefix(prefix) }.sorted()
    }

    /// The store of `--home DIR` typed on the line, else the environment's.
    static func location(words: [String], environment: [String: String]) -> StoreLocation {
        var home: String?
        for (index, word) in words.enumerated() {
            if word == "--home", index + 1 < words.count { home = words[index + 1] }
            if word.hasPrefix("--home=") { home = String(word.dropFirst("--home=".count)) }
        }
        // The shell hands the words over as typed: `--home ~/walks` still has its tilde.
        if let typed = home, typed == "~" || typed.hasPrefix("~/"), let user = environment["HOME"], !user.isEmpty {
            home = user + typed.dropFirst()
        }
        let paths = WalkscapePaths.resolve(home: home, environment: environment)
        return StoreLocation(dataFolder: paths.data)
    }

    /// Sub-folders of the typed path's folder whose names start with the typed last part, offered
    /// with a trailing slash; those holding a tour.json are offered as they are too.
    static func tourFolders(prefix: String) -> [String] {
        let slash = prefix.lastIndex(of: "/")
        let folder = slash.map { String(prefix[...$0]) } ?? ""
        let start = slash.map { String(prefix[prefix.index(after: $0)...]) } ?? prefix
        let base = folder.isEmpty ? "." : folder
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: base) else { return [] }
        var offered: [String] = []
        for name in names.sorted() where name.hasPrefix(start) && (start.hasPrefix(".") || !name.hasPrefix(".")) {
            var isDirectory: ObjCBool = false
            let path = (base as NSString).appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                continue
            }
            if FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent("tour.json")) {
                offered.append(folder + name)
            }
            offered.append(folder + name + "/")
        }
        return offered
    }
}

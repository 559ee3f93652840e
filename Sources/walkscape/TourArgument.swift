import Foundation
import TourModel

/// How a command turns its TOUR argument into a tour: today a tour folder (installed tours by id
/// or slug arrive with the content store). Every command that takes a tour (lint, preview, map,
/// walk) comes through here, so they all accept the same things.
enum TourArgument {
    /// The folder a TOUR argument names: the folder itself, or its `tour.json` (what a shell's
    /// completion or a curator's editor hands over as often as the folder).
    static func folderURL(_ path: String) throws(CLIError) -> URL {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw CLIError.usage("\(path): no such tour folder")
        }
        if isDirectory.boolValue {
            guard TourFolder.isTourFolder(url) else { throw CLIError.usage("\(path): not a tour folder (no tour.json)") }
            return url
        }
        guard url.lastPathComponent == TourFolder.manifestName else {
            throw CLIError.usage("\(path): a file, not a tour folder (name the folder that holds tour.json)")
        }
        return url.deletingLastPathComponent()
    }

    /// The argument as the folder's name in messages: `tours/demo` for `tours/demo/tour.json`.
    static func folderName(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        guard url.lastPathComponent == TourFolder.manifestName, !url.hasDirectoryPath else { return path }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else { return path }
        let parent = (path as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }

    static func folder(_ path: String) throws(CLIError) -> TourFolder {
        let url = try folderURL(path)
        do { return try TourFolder.load(from: url) } catch { throw CLIError.data("\(folderName(path))/\(error.message)") }
    }

    /// The tour in the language asked for: the flag, else the configured language if the tour has
    /// it, else the tour's default.
    static func playable(_ folder: TourFolder, language: String?, settings: Settings) throws(CLIError) -> PlayableTour {
        let configured = settings.language.flatMap { folder.languageInfo[$0] == nil ? nil : $0 }
        do { return try folder.playable(language: language ?? configured) } catch { throw CLIError.usage(error.message) }
    }
}

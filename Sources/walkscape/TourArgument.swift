import Foundation
import TourModel

/// How a command turns its TOUR argument into a tour: today a tour folder (installed tours by id
/// or slug arrive with the content store).
enum TourArgument {
    static func folder(_ path: String) throws(CLIError) -> TourFolder {
        let url = URL(fileURLWithPath: path)
        guard TourFolder.isTourFolder(url) else {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
                throw CLIError.usage("\(path): not a tour folder (no tour.json)")
            }
            throw CLIError.usage("\(path): no such tour folder")
        }
        do { return try TourFolder.load(from: url) } catch { throw CLIError.data("\(path)/\(error.message)") }
    }

    /// The tour in the language asked for: the flag, else the configured language if the tour has
    /// it, else the tour's default.
    static func playable(_ folder: TourFolder, language: String?, settings: Settings) throws(CLIError) -> PlayableTour {
        let configured = settings.language.flatMap { folder.languageInfo[$0] == nil ? nil : $0 }
        do { return try folder.playable(language: language ?? configured) } catch { throw CLIError.usage(error.message) }
    }
}

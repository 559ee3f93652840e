import Foundation

/// After a login or a registration with `--api-url`: the session belongs to that service, so the
/// walker's next commands (`tours`, `redeem`, `download`, `sync`) must go there without the flag
/// again. The URL is written to the config file when the file names no service; a file that names
/// another one is left alone (it is the user's), and the user is told where later commands go.
package enum ServiceMemory {
    /// What to tell the user, if anything. Never fails the command: the login has happened.
    package static func remember(_ settings: Settings) -> String? {
        guard settings.origins["api-url"] == "flag", let url = settings.apiURL else { return nil }
        let file = settings.paths.configFile
        do {
            switch try ConfigFile.load(file)["api-url"] {
            case nil:
                try ConfigFile.set("api-url", to: url, in: file)
                return "Saved api-url = \(url) in \(file.path): later commands use this service."
            case url?:
                return nil
            case let other?:
                return
                    "Note: \(file.path) names another service (\(other)): later commands go there unless given --api-url \(url)."
            }
        } catch {
            return
                "Note: the service could not be saved in \(file.path) (\(error.message)): give later commands --api-url \(url)."
        }
    }
}

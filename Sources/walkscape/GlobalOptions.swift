import ArgumentParser
import Foundation
import TourModel
import Walk
import WalkscapeKit

/// Options every command shares. Each setting resolves the same way everywhere:
/// the flag, else the environment variable, else the config file, else the default.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("Keep config, data and state under this folder (env: WALKSCAPE_HOME).", valueName: "dir"))
    var home: String?

    @Option(
        name: .long, help: ArgumentHelp("gpsd host (env: WALKSCAPE_GPSD_HOST; default 127.0.0.1).", valueName: "host"))
    var gpsdHost: String?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("gpsd port (env: WALKSCAPE_GPSD_PORT; default 2947).", valueName: "port"))
    var gpsdPort: Int?

    @Option(name: .long, help: ArgumentHelp("API base URL (env: WALKSCAPE_API_URL).", valueName: "url"))
    var apiURL: String?

    @Flag(
        name: .long,
        help: "Allow a plain http:// API URL to a host that is not this machine (env: WALKSCAPE_ALLOW_INSECURE_HTTP).")
    var insecureHTTP = false

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds the API has for a whole answer, its body included, before the attempt is given up (env: WALKSCAPE_API_TIMEOUT; default 20; media downloads go on as long as bytes keep coming).",
            valueName: "s"))
    var timeout: Double?

    @Flag(
        name: .long,
        help:
            "Record no analytics events and send none (also: DO_NOT_TRACK=1, or `analytics = off` in the config file).")
    var noAnalytics = false

    func validate() throws {
        if let gpsdPort { try Limits.gpsdPort.check(gpsdPort, flag: "--gpsd-port") }
        if let timeout { try Limits.apiTimeout.check(timeout, flag: "--timeout") }
    }

    /// Reads the environment and the config file once, for the command that asks. A config file
    /// that cannot be read as a whole (a line that is not `key = value`, an unknown key) stops
    /// the command: a misspelt key may be the very setting it needs. Values are checked only
    /// when a command uses them (`Settings.gpsdPort()`), so a bad gpsd port never stops an
    /// offline preview.
    func settings(environment: [String: String] = ProcessInfo.processInfo.environment) throws(AppError) -> Settings {
        try Settings.resolve(flags: flags, environment: environment)
    }

    /// For `doctor`, which reports a broken config file as one of its findings and checks the
    /// rest with the defaults.
    func settingsReportingFileProblem(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> (settings: Settings, fileProblem: String?)
    {
        Settings.resolveReportingFileProblem(flags: flags, environment: environment)
    }

    /// The flags as the application layer takes them.
    var flags: SettingsFlags {
        SettingsFlags(
            home: home, gpsdHost: gpsdHost, gpsdPort: gpsdPort, apiURL: apiURL, insecureHTTP: insecureHTTP,
            timeout: timeout, noAnalytics: noAnalytics)
    }
}

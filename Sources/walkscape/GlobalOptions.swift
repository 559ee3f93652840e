import ArgumentParser
import Foundation

/// Options every command shares. Each setting resolves the same way everywhere:
/// the flag, else the environment variable, else the config file, else the default.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Keep config, data and state under this folder (env: WALKSCAPE_HOME).", valueName: "dir"))
    var home: String?

    @Option(name: .long, help: ArgumentHelp("gpsd host (env: WALKSCAPE_GPSD_HOST; default 127.0.0.1).", valueName: "host"))
    var gpsdHost: String?

    @Option(name: .long, help: ArgumentHelp("gpsd port (env: WALKSCAPE_GPSD_PORT; default 2947).", valueName: "port"))
    var gpsdPort: Int?

    @Option(name: .long, help: ArgumentHelp("API base URL (env: WALKSCAPE_API_URL).", valueName: "url"))
    var apiURL: String?

    @Flag(name: .long, help: "Allow a plain http:// API URL to a host that is not this machine (env: WALKSCAPE_ALLOW_INSECURE_HTTP).")
    var insecureHTTP = false

    @Option(name: .long, help: ArgumentHelp("Seconds to wait for the API to answer before giving up (env: WALKSCAPE_API_TIMEOUT; default 20).", valueName: "s"))
    var timeout: Double?

    func validate() throws {
        if let gpsdPort, !(1...65535).contains(gpsdPort) {
            throw ValidationError("--gpsd-port must be between 1 and 65535, not \(gpsdPort)")
        }
        if let timeout, !(timeout > 0 && timeout <= 3600) {
            throw ValidationError("--timeout must be between 0 and 3600 seconds")
        }
    }

    /// Reads the environment and the config file once, for the command that asks.
    func settings(environment: [String: String] = ProcessInfo.processInfo.environment) throws(CLIError) -> Settings {
        let paths = WalkscapePaths.resolve(home: home, environment: environment)
        let file = try ConfigFile.load(paths.configFile)
        return try Settings(paths: paths, flags: self, environment: environment, file: file)
    }
}

/// The resolved settings of one run.
struct Settings: Sendable {
    static let defaultGPSDHost = "127.0.0.1"
    static let defaultGPSDPort = 2947
    static let defaultAudioDevice = "default"

    var paths: WalkscapePaths
    var gpsdHost: String
    var gpsdPort: Int
    var apiURL: String?
    var audioDevice: String
    var language: String?
    var allowInsecureHTTP: Bool
    /// Seconds the API may take to answer; nil for the client's defaults.
    var apiTimeout: Double?
    /// Which layer each value came from, for `doctor`.
    var origins: [String: String]

    init(paths: WalkscapePaths, flags: GlobalOptions, environment: [String: String], file: ConfigFile) throws(CLIError) {
        self.paths = paths
        var origins: [String: String] = [:]
        func pick(_ key: String, flag: String?, env: String) -> String? {
            if let flag { origins[key] = "flag"; return flag }
            if let v = environment[env], !v.isEmpty { origins[key] = env; return v }
            if let v = file[key] { origins[key] = "config file"; return v }
            return nil
        }
        gpsdHost = pick("gpsd-host", flag: flags.gpsdHost, env: "WALKSCAPE_GPSD_HOST") ?? Self.defaultGPSDHost
        let portText = pick("gpsd-port", flag: flags.gpsdPort.map(String.init), env: "WALKSCAPE_GPSD_PORT")
        if let portText {
            guard let port = Int(portText), (1...65535).contains(port) else {
                throw CLIError.usage("gpsd port '\(portText)' (from \(origins["gpsd-port"] ?? "?")) is not a port number")
            }
            gpsdPort = port
        } else {
            gpsdPort = Self.defaultGPSDPort
        }
        apiURL = pick("api-url", flag: flags.apiURL, env: "WALKSCAPE_API_URL")
        audioDevice = pick("audio-device", flag: nil, env: "WALKSCAPE_AUDIO_DEVICE") ?? Self.defaultAudioDevice
        language = pick("language", flag: nil, env: "WALKSCAPE_LANGUAGE")
        let insecure = pick("allow-insecure-http", flag: flags.insecureHTTP ? "true" : nil, env: "WALKSCAPE_ALLOW_INSECURE_HTTP")?.lowercased()
        allowInsecureHTTP = ["1", "true", "yes"].contains(insecure ?? "")
        if let text = pick("api-timeout", flag: flags.timeout.map { String($0) }, env: "WALKSCAPE_API_TIMEOUT") {
            guard let seconds = Double(text), seconds > 0, seconds <= 3600 else {
                throw CLIError.usage("API timeout '\(text)' (from \(origins["api-timeout"] ?? "?")) is not a number of seconds between 0 and 3600")
            }
            apiTimeout = seconds
        }
        self.origins = origins
    }
}

import Foundation
import TourAPI
import TourModel
import Walk

/// The flags every command shares, as given (nil: not given): the command line parses them, the
/// application layer resolves them with the environment and the config file.
package struct SettingsFlags: Sendable {
    package var home: String?
    package var gpsdHost: String?
    package var gpsdPort: Int?
    package var apiURL: String?
    package var insecureHTTP = false
    package var timeout: Double?
    package var noAnalytics = false

    package init(
        home: String? = nil, gpsdHost: String? = nil, gpsdPort: Int? = nil, apiURL: String? = nil,
        insecureHTTP: Bool = false, timeout: Double? = nil, noAnalytics: Bool = false
    ) {
        self.home = home
        self.gpsdHost = gpsdHost
        self.gpsdPort = gpsdPort
        self.apiURL = apiURL
        self.insecureHTTP = insecureHTTP
        self.timeout = timeout
        self.noAnalytics = noAnalytics
    }
}

/// The resolved settings of one run: each value as written (flag, environment or config file),
/// checked by the accessor of the command that uses it.
package struct Settings: Sendable {
    package static let defaultGPSDHost = "127.0.0.1"
    package static let defaultGPSDPort = 2947
    package static let defaultAudioDevice = "default"

    package var paths: WalkscapePaths
    package var gpsdHost: String
    package var apiURL: String?
    package var audioDevice: String
    package var language: String?
    /// Which layer each value came from, for `doctor` and for messages.
    package var origins: [String: String]
    /// Which requests go through a proxy (`ProxyRule`, from the environment).
    package var proxies: ProxyRule = .none
    /// Values not checked at start-up, by config file key.
    private var raw: [String: String]
    /// `DO_NOT_TRACK` is set: no analytics, whatever the other settings say.
    private var doNotTrack: Bool

    /// Reads the environment and the config file once. A config file that cannot be read as a
    /// whole (a line that is not `key = value`, an unknown key) is an error: a misspelt key may be
    /// the very setting the command needs.
    package static func resolve(flags: SettingsFlags, environment: [String: String]) throws(AppError) -> Settings {
        let paths = WalkscapePaths.resolve(home: flags.home, environment: environment)
        let file = try ConfigFile.load(paths.configFile)
        return Settings(paths: paths, flags: flags, environment: environment, file: file)
    }

    /// For `doctor`, which reports a broken config file as one of its findings and checks the
    /// rest with the defaults.
    package static func resolveReportingFileProblem(flags: SettingsFlags, environment: [String: String])
        -> (settings: Settings, fileProblem: String?)
    {
        let paths = WalkscapePaths.resolve(home: flags.home, environment: environment)
        do throws(AppError) {
            let file = try ConfigFile.load(paths.configFile)
            return (Settings(paths: paths, flags: flags, environment: environment, file: file), nil)
        } catch {
            return (Settings(paths: paths, flags: flags, environment: environment, file: ConfigFile()), error.message)
        }
    }

    package init(paths: WalkscapePaths, flags: SettingsFlags, environment: [String: String], file: ConfigFile) {
        self.paths = paths
        var origins: [String: String] = [:]
        func pick(_ key: String, flag: String?, env: String) -> String? {
            if let flag { origins[key] = "flag"; return flag }
            if let v = environment[env], !v.isEmpty { origins[key] = env; return v }
            if let v = file[key] { origins[key] = "config file"; return v }
            return nil
        }
        gpsdHost = pick("gpsd-host", flag: flags.gpsdHost, env: "WALKSCAPE_GPSD_HOST") ?? Self.defaultGPSDHost
        apiURL = pick("api-url", flag: flags.apiURL, env: "WALKSCAPE_API_URL")
        audioDevice = pick("audio-device", flag: nil, env: "WALKSCAPE_AUDIO_DEVICE") ?? Self.defaultAudioDevice
        language = pick("language", flag: nil, env: "WALKSCAPE_LANGUAGE")
        var raw: [String: String] = [:]
        raw["gpsd-port"] = pick("gpsd-port", flag: flags.gpsdPort.map(String.init), env: "WALKSCAPE_GPSD_PORT")
        raw["allow-insecure-http"] = pick(
            "allow-insecure-http", flag: flags.insecureHTTP ? "true" : nil,
            env: "WALKSCAPE_ALLOW_INSECURE_HTTP")
        raw["api-timeout"] = pick("api-timeout", flag: flags.timeout.map { String($0) }, env: "WALKSCAPE_API_TIMEOUT")
        raw["max-error"] = pick("max-error", flag: nil, env: "WALKSCAPE_MAX_ERROR")
        raw["missed"] = pick("missed", flag: nil, env: "WALKSCAPE_MISSED")
        raw["analytics"] = pick("analytics", flag: flags.noAnalytics ? "off" : nil, env: "WALKSCAPE_ANALYTICS")
        raw["analytics-dialect"] = pick("analytics-dialect", flag: nil, env: "WALKSCAPE_ANALYTICS_DIALECT")
        raw["loudness"] = pick("loudness", flag: nil, env: "WALKSCAPE_LOUDNESS")
        raw["analytics-batch-bytes"] = pick("analytics-batch-bytes", flag: nil, env: "WALKSCAPE_ANALYTICS_BATCH_BYTES")
        raw["ca-file"] = pick("ca-file", flag: nil, env: "WALKSCAPE_CA_FILE")
        // OpenSSL's (and curl's) variable: a bundle of authorities used instead of the system's.
        if let bundle = environment["SSL_CERT_FILE"], !bundle.isEmpty {
            raw["ssl-cert-file"] = bundle
            origins["ssl-cert-file"] = "SSL_CERT_FILE"
        }
        // The proxies, as curl reads them (http_proxy, https_proxy, all_proxy, no_proxy).
        proxies = ProxyRule(environment: environment)
        // The convention of consoledonottrack.com: any value but empty or 0 opts out, whatever else says.
        doNotTrack = environment["DO_NOT_TRACK"].map { !["", "0", "false", "no"].contains($0.lowercased()) } ?? false
        self.raw = raw
        self.origins = origins
    }

    /// `gpsd port 'x' (from config file) is not a port number (1-65535)`.
    private func invalid(_ key: String, _ what: String) -> AppError {
        AppError.usage("\(key) \(TerminalText.echo(raw[key] ?? "")) (from \(origins[key] ?? "?")) \(what)")
    }

    package func gpsdPort() throws(AppError) -> Int {
        guard let text = raw["gpsd-port"] else { return Self.defaultGPSDPort }
        guard let port = Int(text), Limits.gpsdPort.contains(port) else {
            throw invalid("gpsd-port", "is not a port number (\(Limits.gpsdPort.phrase))")
        }
        return port
    }

    package func allowInsecureHTTP() throws(AppError) -> Bool {
        guard let text = raw["allow-insecure-http"]?.lowercased() else { return false }
        if ["1", "true", "yes"].contains(text) { return true }
        if ["0", "false", "no"].contains(text) { return false }
        throw invalid("allow-insecure-http", "is not true or false")
    }

    /// The authorities a secure connection's certificate must come from: the system's (or the
    /// bundle `SSL_CERT_FILE` names instead), and those in `ca-file`. The files are read at the
    /// first secure connection, and one that cannot be had is said there (exit 64), not before: a
    /// plain-HTTP service needs none.
    package func authorities() -> TrustedAuthorities {
        var authorities = TrustedAuthorities.system
        if let bundle = raw["ssl-cert-file"] {
            authorities = authorities.replacingSystem(withPEMFile: bundle, origin: "SSL_CERT_FILE")
        }
        // An empty value is unset, as an empty SSL_CERT_FILE is (it named the config's folder).
        if var file = raw["ca-file"], !file.trimmingCharacters(in: .whitespaces).isEmpty {
            // A relative path in the config file is the config file's folder's, as the server's are.
            if origins["ca-file"] == "config file", !file.hasPrefix("/") {
                file = paths.configFile.deletingLastPathComponent().appendingPathComponent(file).path
            }
            authorities = authorities.adding(pemFile: file, origin: "ca-file (from \(origins["ca-file"] ?? "?"))")
        }
        return authorities
    }

    /// Seconds the API may take to answer; nil for the client's own timeouts.
    package func apiTimeout() throws(AppError) -> Double? {
        guard let text = raw["api-timeout"] else { return nil }
        guard let seconds = Double(text), Limits.apiTimeout.contains(seconds) else {
            throw invalid("api-timeout", "is not a number of seconds \(Limits.apiTimeout.phrase)")
        }
        return seconds
    }

    /// The fix filter's error bound when no `--max-error` is given, in metres.
    package func maxError() throws(AppError) -> Double? {
        guard let text = raw["max-error"] else { return nil }
        guard let metres = Double(text), Limits.maxError.contains(metres) else {
            throw invalid("max-error", "is not a number \(Limits.maxError.phrase)")
        }
        return metres
    }

    /// Whether analytics events are recorded and sent, and how (docs/analytics.md). Off when
    /// `--no-analytics` is given, when `DO_NOT_TRACK` is set, or when `analytics` says so
    /// (`WALKSCAPE_ANALYTICS`, the config file).
    package func analytics() throws(AppError) -> AnalyticsSettings {
        var settings = AnalyticsSettings()
        if origins["analytics"] == "flag" {
            settings.disabledBy = "--no-analytics"
        } else if doNotTrack {
            settings.disabledBy = "DO_NOT_TRACK"
        } else if let text = raw["analytics"]?.lowercased() {
            if ["0", "off", "false", "no"].contains(text) {
                settings.disabledBy = "analytics = off (\(origins["analytics"] ?? "?"))"
            } else if !["1", "on", "true", "yes"].contains(text) {
                throw invalid("analytics", "is not on or off")
            }
        }
        if let text = raw["analytics-dialect"] {
            guard let dialect = APIDialect(rawValue: text.lowercased()) else {
                throw invalid(
                    "analytics-dialect", "is not one of \(APIDialect.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            settings.dialect = dialect
        }
        if let text = raw["analytics-batch-bytes"] {
            guard let bytes = Int(text), Limits.analyticsBatchBytes.contains(bytes) else {
                throw invalid("analytics-batch-bytes", "is not a number \(Limits.analyticsBatchBytes.phrase)")
            }
            settings.maxBatchBytes = bytes
        }
        return settings
    }

    /// The level narration plays at (docs/loudness.md): `flag` (`--loudness`) if given, else
    /// `loudness` from the environment or the config file, else −16 LUFS.
    package func loudness(flag: String? = nil) throws(AppError) -> LoudnessTarget {
        if let flag {
            guard let target = LoudnessTarget(parsing: flag) else {
                throw AppError.usage("--loudness '\(flag)' \(Self.loudnessPhrase)")
            }
            return target
        }
        guard let text = raw["loudness"] else { return .standard }
        guard let target = LoudnessTarget(parsing: text) else { throw invalid("loudness", Self.loudnessPhrase) }
        return target
    }

    static let loudnessPhrase =
        "is not off or a level in LUFS from \(Int(LoudnessTarget.range.lowerBound)) to \(Int(LoudnessTarget.range.upperBound))"

    /// What happens to missed points when no `--missed` is given.
    package func missed() throws(AppError) -> WalkPolicy.MissedPoints? {
        guard let text = raw["missed"] else { return nil }
        guard let policy = WalkPolicy.MissedPoints(rawValue: text.lowercased()) else {
            throw invalid(
                "missed", "is not one of \(WalkPolicy.MissedPoints.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return policy
    }
}

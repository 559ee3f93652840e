import Foundation
import GPSD
import Playback
import Positioning
import TourAPI
import TourModel
import TourStore

/// The machine checks behind `walkscape doctor`, each answering one question a walker would ask
/// before heading out.
package struct DoctorChecks {
    package init(
        settings: Settings, audioDevice: String, fileProblem: String? = nil, apiTimeout: Duration = .seconds(3)
    ) {
        self.settings = settings
        self.audioDevice = audioDevice
        self.fileProblem = fileProblem
        self.apiTimeout = apiTimeout
    }

    package var settings: Settings
    package var audioDevice: String
    /// Why the config file could not be read, if it could not.
    package var fileProblem: String? = nil

    /// How long the API check waits for `/health`: a check must not hang.
    package var apiTimeout: Duration = .seconds(3)

    package func all() async -> [DoctorCheck] {
        // The config file's problems belong to the config folder's line.
        let folders = directories().map { check in
            guard check.name == "config", let problem = configFileProblem() else { return check }
            return DoctorCheck(
                name: "config", status: .fail,
                detail: check.status == .ok ? problem : "\(problem); \(check.detail)",
                hint:
                    "fix it in \(settings.paths.configFile.path) (the README's Configuration lists the keys and their values)"
            )
        }
        return [gpsd(), audio(), mpg123(), ffmpeg(), loudness(), sqlite()] + folders + [
            store(), trust(), await api(), credentials(),
        ]
    }

    package func gpsd() -> DoctorCheck {
        let host = settings.gpsdHost, port: Int
        do { port = try settings.gpsdPort() } catch {
            return DoctorCheck(
                name: "gpsd", status: .fail, detail: error.message,
                hint:
                    "set a port from 1 to 65535 (2947 is gpsd's own) with --gpsd-port, WALKSCAPE_GPSD_PORT or `gpsd-port = 2947` in \(settings.paths.configFile.path)"
            )
        }
        switch GPSDProbe.probe(host: host, port: port, timeout: 2) {
        case .success(let v):
            return DoctorCheck(
                name: "gpsd", status: .ok,
                detail: "gpsd \(v.release) (protocol \(v.protocolVersion)) at \(host):\(port)")
        case .failure(let failure):
            return DoctorCheck(
                name: "gpsd", status: .fail, detail: failure.description,
                hint:
                    "start gpsd (e.g. `sudo systemctl start gpsd` or `gpsd -N /dev/ttyACM0`), or point walkscape at it with --gpsd-host/--gpsd-port; without GPS, preview a tour with --trace"
            )
        }
    }

    package func audio() -> DoctorCheck {
        switch ALSAProbe.canOpen(device: audioDevice) {
        case .success:
            return DoctorCheck(
                name: "audio", status: .ok,
                detail: "ALSA device '\(audioDevice)' opens (alsa-lib \(PlaybackLibraries.alsaVersion))")
        case .failure(let failure):
            let cards = ALSAProbe.cards()
            let why = cards.isEmpty ? "no sound card found" : "sound cards: \(cards.joined(separator: ", "))"
            return DoctorCheck(
                name: "audio", status: .fail,
                detail: "cannot open ALSA device '\(audioDevice)': \(failure.reason); \(why)",
                hint:
                    "choose a device with --audio-device NAME (list them with `aplay -L`), or walk silently with --no-audio"
            )
        }
    }

    /// The libraries that decode every narration format but MP3.
    package func ffmpeg() -> DoctorCheck {
        DoctorCheck(
            name: "codecs", status: .ok,
            detail:
                "WAV, AAC, Ogg Vorbis, Opus, FLAC, WebM, AIFF: libavformat \(FFmpegLibraries.avformatVersion), libavcodec \(FFmpegLibraries.avcodecVersion), libswresample \(FFmpegLibraries.swresampleVersion)"
        )
    }

    /// The loudness meter, and the level narration is brought to (docs/loudness.md).
    package func loudness() -> DoctorCheck {
        let library = "EBU R128 by libebur128 \(LoudnessMeter.libraryVersion)"
        do throws(AppError) {
            let target = try settings.loudness()
            let level =
                target == .off ? "narration plays as recorded (loudness = off)" : "narration levelled to \(target)"
            return DoctorCheck(name: "level", status: .ok, detail: "\(library); \(level)")
        } catch {
            return DoctorCheck(
                name: "level", status: .fail, detail: "\(library); \(error.message)",
                hint: "set loudness to off or a level such as -16 in \(settings.paths.configFile.path)")
        }
    }

    package func mpg123() -> DoctorCheck {
        DoctorCheck(name: "mp3", status: .ok, detail: "libmpg123 API \(PlaybackLibraries.mpg123APIVersion)")
    }

    package func sqlite() -> DoctorCheck {
        DoctorCheck(name: "sqlite", status: .ok, detail: "SQLite \(TourStore.sqliteVersion())")
    }

    /// The tour store: the catalog opens and passes SQLite's quick check; what it holds.
    package func store() -> DoctorCheck {
        let location = StoreAccess.location(settings)
        let store: TourStore?
        do { store = try TourStore.openIfPresent(location) } catch {
            return DoctorCheck(
                name: "store", status: .fail, detail: error.message,
                hint: "move \(location.catalog.path) aside and download the tours again")
        }
        guard let store else {
            return DoctorCheck(
                name: "store", status: .ok, detail: "no tours downloaded yet (\(location.dataFolder.path))")
        }
        let health: StoreHealth
        do { health = try store.health() } catch {
            return DoctorCheck(
                name: "store", status: .fail, detail: error.message,
                hint: "move \(location.catalog.path) aside and download the tours again")
        }
        guard health.quickCheck == "ok" else {
            return DoctorCheck(
                name: "store", status: .fail, detail: "the catalog is damaged: \(health.quickCheck)",
                hint: "move \(location.catalog.path) aside and download the tours again")
        }
        var detail =
            "\(health.tours) tour\(health.tours == 1 ? "" : "s") installed, \(health.blobs) file\(health.blobs == 1 ? "" : "s") (\(ByteCount.format(health.bytes))); catalog sound"
        if health.partialDownloads > 0 {
            detail +=
                "; \(health.partialDownloads) interrupted download\(health.partialDownloads == 1 ? "" : "s") (download resumes them, gc drops them)"
        }
        if store.isReadOnly {
            return DoctorCheck(
                name: "store", status: .warn,
                detail: detail + "; read-only: the catalog cannot be written, so downloads, updates and removals fail",
                hint: "free some space in \(location.dataFolder.path), or make it writable")
        }
        return DoctorCheck(name: "store", status: .ok, detail: detail)
    }

    package func directories() -> [DoctorCheck] {
        [("config", settings.paths.config), ("data", settings.paths.data), ("state", settings.paths.state)].map {
            name, url in
            if let problem = Self.writeProblem(url) {
                return DoctorCheck(
                    name: name, status: .fail, detail: "\(url.path) is not writable (\(problem))",
                    hint:
                        "fix its permissions, or keep everything under another folder with --home DIR or WALKSCAPE_HOME"
                )
            }
            if name == "config", let mode = Self.mode(of: url), mode & 0o022 != 0 {
                // Whoever may write here may change the service walkscape talks to, or swap the
                // walker's credentials.
                return DoctorCheck(
                    name: name, status: .warn,
                    detail:
                        "\(url.path) is writable by \(mode & 0o002 != 0 ? "everyone" : "its group") (mode \(String(mode, radix: 8)))",
                    hint: "chmod 700 \(url.path): it holds your settings and credentials")
            }
            return DoctorCheck(name: name, status: .ok, detail: "\(url.path) is writable")
        }
    }

    /// A folder's permission bits, following a symbolic link; nil when there is none.
    static func mode(of url: URL) -> mode_t? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        return info.st_mode & 0o777
    }

    /// Creates the folder if needed and writes a probe file into it; the reason in plain words if not.
    package static func writeProblem(_ url: URL) -> String? {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            return "a file is in the way"
        }
        var ancestor = url.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: ancestor.path, isDirectory: &isDirectory), ancestor.path != "/" {
            ancestor.deleteLastPathComponent()
        }
        if !isDirectory.boolValue { return "\(ancestor.path) is a file, not a folder" }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            return access(ancestor.path, W_OK) != 0 ? String(cString: strerror(errno)) : "cannot create it"
        }
        let probe = url.appendingPathComponent(".doctor-\(getpid())").path
        let fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        close(fd)
        unlink(probe)
        return nil
    }

    /// What is wrong with the config file as a whole, or with the settings no other check uses
    /// (the walk's triggering); nil when nothing is.
    package func configFileProblem() -> String? {
        if let fileProblem { return fileProblem }
        do {
            _ = try settings.maxError()
            _ = try settings.missed()
        } catch {
            return error.message
        }
        return nil
    }

    /// Can a secure connection's certificate be checked: the bundles `SSL_CERT_FILE` and `ca-file`
    /// name are read (a command reads them only at its first secure connection, so a broken one
    /// goes unnoticed while the service is plain HTTP), and the system's authorities are there
    /// unless `SSL_CERT_FILE` replaces them. A problem fails for an https service, and is a
    /// warning otherwise (nothing needs the authorities yet).
    package func trust() -> DoctorCheck {
        let secureService = settings.apiURL?.lowercased().hasPrefix("https:") ?? false
        let problem: DoctorCheck.Status = secureService ? .fail : .warn
        let bundles: [TrustedAuthorities.NamedBundle]
        do { bundles = try settings.authorities().namedBundles() } catch {
            return DoctorCheck(
                name: "trust", status: problem, detail: error.detail,
                hint: "fix the file or remove the setting: an https service cannot be used until then")
        }
        let named = bundles.map { bundle in
            let count = bundle.authorities == 1 ? "1 authority" : "\(bundle.authorities) authorities"
            return "\(count) from \(bundle.origin) (\(bundle.path))"
        }
        guard !bundles.contains(where: \.replacesSystem) else {
            return DoctorCheck(name: "trust", status: .ok, detail: named.joined(separator: " and "))
        }
        guard let system = TrustedAuthorities.systemBundle else {
            return DoctorCheck(
                name: "trust", status: problem,
                detail: "no certificate authorities of the system's (/etc/ssl/certs): no https service can be checked",
                hint: "install ca-certificates, or name a bundle with SSL_CERT_FILE")
        }
        return DoctorCheck(
            name: "trust", status: .ok,
            detail: (["the system's certificate authorities (\(system))"] + named).joined(separator: " and "))
    }

    package func api() async -> DoctorCheck {
        guard let text = settings.apiURL else {
            return DoctorCheck(
                name: "api", status: .warn, detail: "no API URL configured (tour folders still work offline)",
                hint: "set --api-url URL, WALKSCAPE_API_URL, or `api-url = URL` in \(settings.paths.configFile.path)")
        }
        let allowInsecure: Bool
        let timeoutSetting: Double?
        do {
            allowInsecure = try settings.allowInsecureHTTP()
            timeoutSetting = try settings.apiTimeout()
        } catch {
            return DoctorCheck(
                name: "api", status: .fail, detail: error.message,
                hint: "fix it in \(settings.paths.configFile.path), the environment or the flag")
        }
        let url: URL
        switch APIEndpoint.validate(text, allowInsecure: allowInsecure) {
        case .success(let valid):
            url = valid
        case .failure(let problem):
            return DoctorCheck(
                name: "api", status: .fail, detail: problem.message,
                hint:
                    "use an https:// URL; plain http:// is for loopback hosts unless --insecure-http or allow-insecure-http = true"
            )
        }
        let origin = "\(url.absoluteString) (from \(settings.origins["api-url"] ?? "default"))"
        // Through a proxy, the answer is the proxy's too: said with it (a failure names it itself).
        let proxy = try? settings.proxies.server(for: url)
        let timeout = timeoutSetting.map { min(apiTimeout, .milliseconds(Int64($0 * 1000))) } ?? apiTimeout
        // A refused secure connection gets its own hint: known by the failure's kind.
        var secure = false
        var settingRefused = false
        do {
            let report = try await ServiceConnection.run(settings) { client -> HealthReport in
                do { return try await client.health(timeout: timeout) } catch let error as APIError {
                    secure = error.transport == .tls
                    settingRefused = error.transport == .invalidRequest
                    throw error
                }
            }
            let ms = Int(
                (Double(report.latency.components.attoseconds) / 1e15 + Double(report.latency.components.seconds) * 1000)
                    .rounded())
            if report.isHealthy {
                let through = proxy.map { " through the proxy \($0.shown)" } ?? ""
                return DoctorCheck(name: "api", status: .ok, detail: "\(origin)\(through) answers /health in \(ms) ms")
            }
            return DoctorCheck(
                name: "api", status: .fail,
                detail:
                    "\(origin) is not healthy (HTTP \(report.status)\(report.health.map { ", status \($0.status)" } ?? ""))",
                hint: "the service reports a problem of its own; try again later")
        } catch {
            let message = (error as? AppError)?.message ?? "\(error)"
            return DoctorCheck(
                name: "api", status: .fail, detail: "\(origin): \(message)",
                // The certificate refused: the reason says whether an authority of one's own helps
                // (and where it goes); an old protocol or a plain-HTTP port is not helped by one.
                hint: secure
                    ? "the service's secure connection is refused, for the reason given"
                    : settingRefused
                        ? "fix the setting named (\(settings.paths.configFile.path), the environment or the flag)"
                        : proxy != nil
                            ? "check the URL, the proxy (https_proxy, http_proxy, all_proxy; no_proxy) and the network"
                            : "check the URL and the network; a local server runs with walkscape-server TOURS --port 8080"
            )
        }
    }

    /// Is there a session, for this service, and until when can it be renewed (the refresh
    /// token's expiry)? Also that nobody else can read the tokens.
    package func credentials() -> DoctorCheck {
        let file = CredentialsFile(url: settings.paths.credentialsFile)
        let saved: Credentials?
        do { saved = try file.load() } catch {
            return DoctorCheck(
                name: "login", status: .fail, detail: error.message, hint: "walkscape logout, then walkscape login")
        }
        guard let saved else {
            return DoctorCheck(
                name: "login", status: .warn, detail: "not logged in (free tours still work)",
                hint: "walkscape login, or walkscape register for a new account")
        }
        if let mode = file.permissions, mode & 0o077 != 0 {
            return DoctorCheck(
                name: "login", status: .fail,
                detail: "\(file.url.path) can be read by others (mode \(String(mode, radix: 8)))",
                hint: "chmod 600 \(file.url.path)")
        }
        let who = saved.email ?? "an account"
        if let text = settings.apiURL,
            case .success(let url) = APIEndpoint.validate(
                text, allowInsecure: (try? settings.allowInsecureHTTP()) ?? false),
            ServiceURL.key(url) != saved.service
        {
            return DoctorCheck(
                name: "login", status: .warn,
                detail: "logged in as \(who) on \(saved.service), not on \(ServiceURL.key(url))",
                hint: "walkscape login to use this service")
        }
        guard let end = saved.sessionExpiresAt else {
            return DoctorCheck(name: "login", status: .ok, detail: "logged in as \(who)")
        }
        if saved.sessionHasExpired(at: Date()) {
            return DoctorCheck(
                name: "login", status: .warn, detail: "the session of \(who) expired on \(HumanDate.format(end))",
                hint: "walkscape login")
        }
        return DoctorCheck(
            name: "login", status: .ok, detail: "logged in as \(who), session valid until \(HumanDate.format(end))")
    }
}

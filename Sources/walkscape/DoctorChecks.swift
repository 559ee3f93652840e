import CSQLite
import Foundation
import Playback
import Positioning

/// The machine checks behind `walkscape doctor`, each answering one question a walker would ask
/// before heading out.
struct DoctorChecks {
    var settings: Settings
    var audioDevice: String
    /// Why the config file could not be read, if it could not.
    var fileProblem: String? = nil

    func all() -> [DoctorCheck] {
        // The config file's problems belong to the config folder's line.
        let folders = directories().map { check in
            guard check.name == "config", let problem = configFileProblem() else { return check }
            return DoctorCheck(name: "config", status: .fail,
                               detail: check.status == .ok ? problem : "\(problem); \(check.detail)",
                               hint: "fix it in \(settings.paths.configFile.path) (the README's Configuration lists the keys and their values)")
        }
        return [gpsd(), audio(), mpg123(), sqlite()] + folders + [api()]
    }

    func gpsd() -> DoctorCheck {
        let host = settings.gpsdHost, port: Int
        do { port = try settings.gpsdPort() } catch {
            return DoctorCheck(name: "gpsd", status: .fail, detail: error.message,
                               hint: "set a port from 1 to 65535 (2947 is gpsd's own) with --gpsd-port, WALKSCAPE_GPSD_PORT or `gpsd-port = 2947` in \(settings.paths.configFile.path)")
        }
        switch GPSDProbe.probe(host: host, port: port, timeout: 2) {
        case .success(let v):
            return DoctorCheck(name: "gpsd", status: .ok,
                               detail: "gpsd \(v.release) (protocol \(v.protocolVersion)) at \(host):\(port)")
        case .failure(let failure):
            return DoctorCheck(name: "gpsd", status: .fail, detail: failure.description,
                               hint: "start gpsd (e.g. `sudo systemctl start gpsd` or `gpsd -N /dev/ttyACM0`), or point walkscape at it with --gpsd-host/--gpsd-port; without GPS, preview a tour with --trace")
        }
    }

    func audio() -> DoctorCheck {
        switch ALSAProbe.canOpen(device: audioDevice) {
        case .success:
            return DoctorCheck(name: "audio", status: .ok,
                               detail: "ALSA device '\(audioDevice)' opens (alsa-lib \(PlaybackLibraries.alsaVersion))")
        case .failure(let failure):
            let cards = ALSAProbe.cards()
            let why = cards.isEmpty ? "no sound card found" : "sound cards: \(cards.joined(separator: ", "))"
            return DoctorCheck(name: "audio", status: .fail,
                               detail: "cannot open ALSA device '\(audioDevice)': \(failure.reason); \(why)",
                               hint: "choose a device with --audio-device NAME (list them with `aplay -L`), or walk silently with --no-audio")
        }
    }

    func mpg123() -> DoctorCheck {
        DoctorCheck(name: "mp3", status: .ok, detail: "libmpg123 API \(PlaybackLibraries.mpg123APIVersion)")
    }

    func sqlite() -> DoctorCheck {
        DoctorCheck(name: "sqlite", status: .ok, detail: "SQLite \(String(cString: sqlite3_libversion()))")
    }

    func directories() -> [DoctorCheck] {
        [("config", settings.paths.config), ("data", settings.paths.data), ("state", settings.paths.state)].map { name, url in
            if let problem = Self.writeProblem(url) {
                return DoctorCheck(name: name, status: .fail, detail: "\(url.path) is not writable (\(problem))",
                                   hint: "fix its permissions, or keep everything under another folder with --home DIR or WALKSCAPE_HOME")
            }
            return DoctorCheck(name: name, status: .ok, detail: "\(url.path) is writable")
        }
    }

    /// Creates the folder if needed and writes a probe file into it; the reason in plain words if not.
    static func writeProblem(_ url: URL) -> String? {
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
    func configFileProblem() -> String? {
        if let fileProblem { return fileProblem }
        do {
            _ = try settings.maxError()
            _ = try settings.missed()
        } catch {
            return error.message
        }
        return nil
    }

    func api() -> DoctorCheck {
        guard let text = settings.apiURL else {
            return DoctorCheck(name: "api", status: .warn, detail: "no API URL configured (tour folders still work offline)",
                               hint: "set --api-url URL, WALKSCAPE_API_URL, or `api-url = URL` in \(settings.paths.configFile.path)")
        }
        let allowInsecure: Bool
        do { allowInsecure = try settings.allowInsecureHTTP() } catch {
            return DoctorCheck(name: "api", status: .fail, detail: error.message,
                               hint: "write allow-insecure-http = true or false")
        }
        switch APIEndpoint.validate(text, allowInsecure: allowInsecure) {
        case .success(let url):
            return DoctorCheck(name: "api", status: .ok, detail: "\(url) (from \(settings.origins["api-url"] ?? "default"))")
        case .failure(let problem):
            return DoctorCheck(name: "api", status: .fail, detail: problem.message,
                               hint: "use an https:// URL; plain http:// is for loopback hosts unless allow-insecure-http = true")
        }
    }

}

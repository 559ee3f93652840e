import Foundation
import Testing
import TestSupport

/// `walkscape doctor` and `--version`, run as a user runs them: the built binary, a private home.
@Suite(.serialized)
struct DoctorTests {
    func json(_ result: ProcessResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
    }

    func check(_ name: String, in report: [String: Any]) throws -> [String: Any] {
        let checks = try #require(report["checks"] as? [[String: Any]])
        return try #require(checks.first { $0["name"] as? String == name })
    }

    @Test func versionPrintsTheVersion() throws {
        let r = try runWalkscape(["--version"])
        #expect(r.status == 0)
        #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("walkscape 0."))
    }

    @Test func realGPSDIsOKWithItsVersion() throws {
        let gpsd = try GPSDHarness()
        let home = try TemporaryDirectory()
        let r = try runWalkscape(["doctor", "--gpsd-port", "\(gpsd.port)", "--audio-device", "null"], home: home)
        let gpsdLine = try #require(r.stdout.split(separator: "\n").first { $0.contains(" gpsd ") })
        #expect(gpsdLine == "OK   gpsd    gpsd 3.22 (protocol 3.14) at 127.0.0.1:\(gpsd.port)")
        #expect(r.status == 0, "\(r.stdout)")  // only the API URL is missing, and that is a WARN
        gpsd.stop()
        let after = try runWalkscape(["doctor", "--gpsd-port", "\(gpsd.port)", "--audio-device", "null"], home: home)
        #expect(after.status == 1)
        #expect(after.stdout.contains("FAIL gpsd    no gpsd at 127.0.0.1:\(gpsd.port)"))
    }

    @Test func closedGPSDPortFailsWithAHintAndNoALSANoise() throws {
        let home = try TemporaryDirectory()
        let port = try freeTCPPort()
        let r = try runWalkscape(["doctor", "--gpsd-port", "\(port)"], home: home)
        #expect(r.status == 1)
        let gpsdLine = try #require(r.stdout.split(separator: "\n").first { $0.contains("gpsd") && !$0.contains("hint") })
        #expect(gpsdLine.hasPrefix("FAIL gpsd"))
        #expect(gpsdLine.contains("no gpsd at 127.0.0.1:\(port) (Connection refused)"))
        #expect(r.stdout.contains("hint: start gpsd"))
        // alsa-lib prints "ALSA lib ..." on stderr unless silenced; nothing else writes there.
        #expect(r.stderr.isEmpty, "stderr: \(r.stderr)")
    }

    @Test func missingSoundDeviceFailsNamingTheDeviceAndTheWayOut() throws {
        let home = try TemporaryDirectory()
        let r = try runWalkscape(["doctor", "--json", "--audio-device", "hw:97"], home: home)
        #expect(r.status == 1)
        let audio = try check("audio", in: json(r))
        #expect(audio["status"] as? String == "fail")
        #expect((audio["detail"] as? String)?.hasPrefix("cannot open ALSA device 'hw:97'") == true)
        #expect((audio["hint"] as? String)?.contains("--audio-device") == true)
        #expect((audio["hint"] as? String)?.contains("--no-audio") == true)
        #expect(r.stderr.isEmpty)
    }

    @Test func nullDeviceAndWritableHomeAreOK() throws {
        let home = try TemporaryDirectory()
        let r = try runWalkscape(["doctor", "--json", "--audio-device", "null"], home: home)
        let report = try json(r)
        #expect(try check("audio", in: report)["status"] as? String == "ok")
        for name in ["config", "data", "state", "mp3", "sqlite"] {
            #expect(try check(name, in: report)["status"] as? String == "ok", "\(name)")
        }
        #expect(try check("data", in: report)["detail"] as? String == "\(home.path)/data is writable")
        #expect((try check("sqlite", in: report)["detail"] as? String)?.hasPrefix("SQLite 3.") == true)
        #expect(try check("api", in: report)["status"] as? String == "warn")
        #expect(report["version"] as? String != nil)
    }

    @Test func unusableDataFolderFails() throws {
        // A file where the data folder should be: fails for root too, unlike a permission bit.
        let home = try TemporaryDirectory()
        try home.write("data", "not a folder")
        let r = try runWalkscape(["doctor", "--json"], home: home)
        #expect(r.status == 1)
        let data = try check("data", in: json(r))
        #expect(data["status"] as? String == "fail")
        #expect(data["detail"] as? String == "\(home.path)/data is not writable (a file is in the way)")
        #expect((data["hint"] as? String)?.contains("--home") == true)
    }

    @Test func gpsdSettingsComeFromFlagThenEnvironmentThenConfigFile() throws {
        let home = try TemporaryDirectory()
        try home.write("config/config", "# walkscape settings\ngpsd-host = 127.0.0.3\ngpsd-port = 3001\n")
        func gpsdDetail(_ args: [String], env: [String: String] = [:]) throws -> String {
            let r = try runWalkscape(["doctor", "--json"] + args, home: home, environment: env)
            return try check("gpsd", in: json(r))["detail"] as? String ?? ""
        }
        #expect(try gpsdDetail([]).contains("127.0.0.3:3001"))
        #expect(try gpsdDetail([], env: ["WALKSCAPE_GPSD_PORT": "3002"]).contains("127.0.0.3:3002"))
        #expect(try gpsdDetail(["--gpsd-port", "3003"], env: ["WALKSCAPE_GPSD_PORT": "3002"]).contains("127.0.0.3:3003"))
        #expect(try gpsdDetail(["--gpsd-host", "127.0.0.4"]).contains("127.0.0.4:3001"))
    }

    @Test func apiURLRules() throws {
        let home = try TemporaryDirectory()
        func api(_ url: String, env: [String: String] = [:]) throws -> [String: Any] {
            try check("api", in: json(runWalkscape(["doctor", "--json", "--api-url", url], home: home, environment: env)))
        }
        #expect(try api("https://api.example.org")["status"] as? String == "ok")
        #expect(try api("http://127.0.0.1:8080")["status"] as? String == "ok")
        #expect(try api("http://api.example.org")["status"] as? String == "fail")
        #expect(try api("http://api.example.org", env: ["WALKSCAPE_ALLOW_INSECURE_HTTP": "1"])["status"] as? String == "ok")
        #expect(try api("ftp://x")["status"] as? String == "fail")
    }
}

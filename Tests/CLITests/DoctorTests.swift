import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

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

    /// The version (debian/changelog's), the commit, and the libraries it runs with, each as the
    /// library installed here says (pkg-config), so a stale or made-up number fails.
    @Test func versionSaysTheVersionTheCommitAndTheLibraries() throws {
        let r = try runWalkscape(["--version"])
        #expect(r.status == 0)
        func module(_ name: String) throws -> String {
            try run(URL(fileURLWithPath: "/usr/bin/pkg-config"), ["--modversion", name]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 7)
        #expect(try TestPaths.isVersionLine(lines.first ?? "", program: "walkscape"), "\(lines.first ?? "")")
        #expect(TestPaths.changelogVersion.split(separator: ".").count == 3)
        #expect(lines.contains("alsa-lib \(try module("alsa"))"))
        #expect(lines.contains("libebur128 \(try module("libebur128"))"))
        #expect(lines.contains("SQLite \(try module("sqlite3"))"))
        #expect(
            lines.contains(
                "libavformat \(try module("libavformat")), libavcodec \(try module("libavcodec")), "
                    + "libswresample \(try module("libswresample"))"))
        #expect(lines.contains { $0.hasPrefix("libmpg123 API ") })
        #expect(lines.contains { $0.hasPrefix("libgps API ") })
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
        let gpsdLine = try #require(
            r.stdout.split(separator: "\n").first { $0.contains("gpsd") && !$0.contains("hint") })
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

    @Test func aConfigFolderOthersMayWriteIsWarnedAbout() throws {
        let home = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: home.file("config"), withIntermediateDirectories: true)
        chmod(home.file("config").path, 0o777)
        let config = try check(
            "config", in: json(runWalkscape(["doctor", "--json", "--audio-device", "null"], home: home)))
        #expect(config["status"] as? String == "warn", "\(config)")
        #expect(config["detail"] as? String == "\(home.path)/config is writable by everyone (mode 777)")
        #expect(config["hint"] as? String == "chmod 700 \(home.path)/config: it holds your settings and credentials")
        chmod(home.file("config").path, 0o700)
        let fixed = try check(
            "config", in: json(runWalkscape(["doctor", "--json", "--audio-device", "null"], home: home)))
        #expect(fixed["status"] as? String == "ok")
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

    /// The bundles of authorities named in the settings are read, and a broken one is said here:
    /// a command reads them only at its first secure connection, so while the service is plain
    /// HTTP nothing else says so. It fails for an https service, and warns for a plain one.
    @Test func theAuthoritiesNamedAreReadAndABrokenBundleIsSaid() throws {
        let home = try TemporaryDirectory()
        // The developer's own settings must not show through.
        let base = ["SSL_CERT_FILE": "", "WALKSCAPE_CA_FILE": "", "WALKSCAPE_API_URL": ""]
        func trust(_ environment: [String: String] = [:]) throws -> (status: String?, detail: String) {
            let r = try runWalkscape(
                ["doctor", "--json", "--audio-device", "null"], home: home,
                environment: base.merging(environment) { $1 })
            let c = try check("trust", in: json(r))
            return (c["status"] as? String, c["detail"] as? String ?? "")
        }
        let system = try #require(
            ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"].first {
                FileManager.default.fileExists(atPath: $0)
            }, "ca-certificates is installed (make deps)")
        let alone = try trust()
        #expect(alone.status == "ok" && alone.detail == "the system's certificate authorities (\(system))")
        let authority = try TestCertificates.shared().authority.path
        try home.write("config/config", "ca-file = \(authority)\n")
        let added = try trust()
        #expect(added.status == "ok", "\(added.detail)")
        #expect(
            added.detail
                == "the system's certificate authorities (\(system)) and 1 authority from ca-file (from config file) (\(authority))"
        )
        let instead = try trust(["SSL_CERT_FILE": authority])
        #expect(
            instead.detail
                == "1 authority from SSL_CERT_FILE (\(authority)) and 1 authority from ca-file (from config file) (\(authority))"
        )
        try home.write("config/config", "ca-file = \(home.path)/missing.pem\n")
        let broken = try trust(["WALKSCAPE_API_URL": "https://127.0.0.1:9"])
        #expect(broken.status == "fail")
        #expect(broken.detail.hasPrefix("ca-file (from config file): cannot read"), "\(broken.detail)")
        // Nothing needs it yet with a plain-HTTP service (or none): said, as a warning.
        #expect(try trust(["WALKSCAPE_API_URL": "http://127.0.0.1:9"]).status == "warn")
        #expect(try trust().status == "warn")
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
        #expect(
            try gpsdDetail(["--gpsd-port", "3003"], env: ["WALKSCAPE_GPSD_PORT": "3002"]).contains("127.0.0.3:3003"))
        #expect(try gpsdDetail(["--gpsd-host", "127.0.0.4"]).contains("127.0.0.4:3001"))
    }

    /// The URL rules decide before anything is sent; an accepted URL is then asked for /health
    /// (here nothing listens, so it fails fast on the refused connection rather than hanging).
    @Test func apiURLRules() throws {
        let home = try TemporaryDirectory()
        let port = try freeTCPPort()
        func api(_ url: String, env: [String: String] = [:]) throws -> (status: String?, detail: String) {
            let c = try check(
                "api", in: json(runWalkscape(["doctor", "--json", "--api-url", url], home: home, environment: env)))
            return (c["status"] as? String, c["detail"] as? String ?? "")
        }
        let local = try api("http://127.0.0.1:\(port)")
        #expect(
            local.status == "fail"
                && local.detail.hasSuffix("cannot reach the service at 127.0.0.1:\(port) (connection refused)"))
        // 0.0.0.0 is not a loopback name, but connecting to it reaches this machine: refused fast.
        let plain = try api("http://0.0.0.0:\(port)")
        #expect(
            plain.status == "fail"
                && plain.detail == "'http://0.0.0.0:\(port)' uses plain http to a host that is not this machine")
        let allowed = try api("http://0.0.0.0:\(port)", env: ["WALKSCAPE_ALLOW_INSECURE_HTTP": "1"])
        #expect(allowed.status == "fail" && allowed.detail.contains("cannot reach the service at 0.0.0.0:\(port)"))
        let flag = try check(
            "api",
            in: json(
                runWalkscape(
                    ["doctor", "--json", "--insecure-http", "--api-url", "http://0.0.0.0:\(port)"], home: home)))
        #expect((flag["detail"] as? String)?.contains("cannot reach") == true)
        #expect(try api("ftp://x").status == "fail")
        #expect(
            try api("https://user:secret@api.example.org").detail
                == "the service URL must not contain a user name or password")
    }

    @Test func controlCharactersInASettingReachTheTerminalAsTextOnlyTheStatusColoursAreEscapes() async throws {
        let home = try TemporaryDirectory()
        // A config file written by someone else: an escape sequence (clear screen) in a value.
        try home.write("config/config", "api-url = ftp://x\u{1B}[2J\u{07}\n")
        let plain = try runWalkscape(["doctor"], home: home, environment: ["TERM": "dumb"])
        #expect(
            !plain.stdout.contains("\u{1B}") && !plain.stdout.contains("\u{07}"), "\(plain.stdout.debugDescription)")
        #expect(plain.stdout.contains("ftp://x\u{FFFD}[2J\u{FFFD}"), "\(plain.stdout.debugDescription)")
        // On a terminal: colours, and no other escape sequence.
        let child = try ChildProcess(
            TestPaths.walkscape, ["doctor", "--home", home.path],
            environment: ["TERM": "xterm", "NO_COLOR": ""], pty: true)
        _ = await child.wait(timeout: 30)
        let escapes = child.output.components(separatedBy: "\u{1B}").dropFirst()
        #expect(!escapes.isEmpty, "no colour on a terminal: \(child.output.debugDescription)")
        #expect(
            escapes.allSatisfy {
                $0.hasPrefix("[0m") || $0.range(of: #"^\[\d+m(OK|WARN|FAIL)"#, options: .regularExpression) != nil
            },
            "\(child.output.debugDescription)")
        #expect(!child.output.contains("\u{07}"))
    }
}

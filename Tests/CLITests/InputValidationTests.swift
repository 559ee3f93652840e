import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Numbers from flags, settings and files are checked at the edge: a usage or data error in
/// one line, never a trap (issue 9, item 14). The real binary, a private home.
@Suite(.serialized)
struct InputValidationTests {
    static let demo = TestPaths.packageRoot.appendingPathComponent("tours/demo")

    /// One line on stderr, `prefix` first, and the exit code; no backtrace.
    func expectOneLine(
        _ r: ProcessResult, status: Int32, _ text: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(r.status == status, "stderr: \(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr.contains(text), "stderr: \(r.stderr)", sourceLocation: sourceLocation)
        #expect(!r.stderr.contains("Backtrace") && !r.stderr.contains("Fatal error"), sourceLocation: sourceLocation)
    }

    @Test func previewRefusesAnInfiniteOrHugeErrorBoundInsteadOfTrapping() throws {
        for value in ["inf", "1e19", "nan", "0", "-5"] {
            let r = try runWalkscape(["preview", Self.demo.path, "--fast", "--no-audio", "--max-error=\(value)"])
            expectOneLine(r, status: 64, "--max-error must be between 0.1 and 10000 metres")
        }
    }

    /// Runs with a time limit: a flag that slips through can make a walk or a preview that never ends.
    func runLimited(_ args: [String], home: TemporaryDirectory) async throws -> (status: Int32?, output: String) {
        let child = try ChildProcess(
            TestPaths.walkscape, args, environment: ["NO_COLOR": "1", "WALKSCAPE_HOME": home.path])
        let status = await child.wait(timeout: 20)
        if status == nil { child.signal(SIGKILL); _ = await child.wait(timeout: 5) }
        return (status, child.output)
    }

    @Test func everyNumericFlagHasARange() async throws {
        let cases: [([String], String)] = [
            (
                ["preview", Self.demo.path, "--no-audio", "--speed", "1e-300"],
                "--speed must be between 0.01 and 10000, not 1e-300"
            ),
            (
                ["preview", Self.demo.path, "--no-audio", "--speed", "inf"],
                "--speed must be between 0.01 and 10000, not inf"
            ),
            (["preview", Self.demo.path, "--fast", "--confirm", "0"], "--confirm must be between 1 and 100, not 0"),
            (
                ["trace", Self.demo.appendingPathComponent("traces/walk.nmea").path, "--max-error", "inf"],
                "--max-error must be between 0.1 and 10000 metres, not inf"
            ),
            (
                ["walk", Self.demo.path, "--no-audio", "--gpsd-timeout", "inf"],
                "--gpsd-timeout must be between 0.1 and 3600 seconds, not inf"
            ),
            (["play", "x.mp3", "--volume", "nan"], "--volume must be between 0 and 1, not nan"),
            (
                ["map", Self.demo.path, "-o", "/dev/null", "--width", "100000"],
                "--width must be between 300 and 10000 pixels, not 100000"
            ),
            (
                ["lint", Self.demo.path, "--walking-speed", "inf"],
                "--walking-speed must be between 0.1 and 10 m/s, not inf"
            ),
            (["doctor", "--gpsd-port", "70000"], "--gpsd-port must be between 1 and 65535, not 70000"),
            // A negative value is a value, named as out of range (it was "Missing value for '--max-error'").
            (
                ["trace", Self.demo.appendingPathComponent("traces/walk.nmea").path, "--max-error", "-1"],
                "--max-error must be between 0.1 and 10000 metres, not -1"
            ),
            (["preview", Self.demo.path, "--fast", "--confirm", "-3"], "--confirm must be between 1 and 100, not -3"),
        ]
        for (args, message) in cases {
            let (status, output) = try await runLimited(args, home: try TemporaryDirectory())
            #expect(status == 64, "\(args): \(output)")
            #expect(output.contains(message), "\(args): \(output)")
        }
    }

    @Test func triggeringSettingsComeFromTheConfigFileAndAreChecked() throws {
        let home = try TemporaryDirectory()
        try home.write("config/config", "max-error = 20   # metres\nmissed = skip\n")
        let r = try runWalkscape(["preview", Self.demo.path, "--fast", "--no-audio"], home: home)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("policy skip, error bound 20 m"))
        let flag = try runWalkscape(
            ["preview", Self.demo.path, "--fast", "--no-audio", "--max-error", "12.5"], home: home)
        #expect(flag.stdout.contains("error bound 12.5 m"))

        try home.write("config/config", "max-error = inf\n")
        expectOneLine(
            try runWalkscape(["preview", Self.demo.path, "--fast", "--no-audio"], home: home), status: 64,
            "walkscape: max-error 'inf' (from config file) is not a number between 0.1 and 10000 metres\n")
        // The flag wins, so the bad setting is never used.
        #expect(
            try runWalkscape(["preview", Self.demo.path, "--fast", "--no-audio", "--max-error", "30"], home: home)
                .status == 0)
        try home.write("config/config", "max-error = 20\n")
        expectOneLine(
            try runWalkscape(
                ["preview", Self.demo.path, "--fast", "--no-audio"], home: home,
                environment: ["WALKSCAPE_MISSED": "sometimes"]), status: 64,
            "walkscape: missed 'sometimes' (from WALKSCAPE_MISSED) is not one of play, skip, strict\n")
    }

    /// A progress file the walk would trap on: point 1 heard, `nextIndex` -1. Made by a real walk
    /// killed after it started (so the file is where and how the walk keeps it), then edited.
    @Test func aProgressFileWithANegativeNextIndexIsRefusedNotTrappedOn() async throws {
        let home = try TemporaryDirectory()
        let port = try freeTCPPort()  // nothing listens: the walk starts and waits for gpsd
        let args = ["walk", Self.demo.path, "--no-audio", "--no-input", "--gpsd-port", "\(port)", "--home", home.path]
        let first = try ChildProcess(TestPaths.walkscape, args, environment: ["NO_COLOR": "1"])
        let folder = home.file("state/progress")
        var files: [String] = []
        for _ in 0..<500 where files.isEmpty {
            try await Task.sleep(for: .milliseconds(20))
            files = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter {
                $0.hasSuffix(".json")
            }
        }
        first.signal(SIGKILL)
        _ = await first.wait(timeout: 10)
        let file = folder.appendingPathComponent(try #require(files.first))
        var progress = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var points = try #require(progress["points"] as? [[String: Any]])
        points[0]["status"] = "played"
        progress["points"] = points
        progress["nextIndex"] = -1
        try JSONSerialization.data(withJSONObject: progress).write(to: file)

        let second = try ChildProcess(TestPaths.walkscape, args, environment: ["NO_COLOR": "1"])
        let code = await second.wait(timeout: 20)
        if code == nil { second.signal(SIGKILL) }
        #expect(code == 65, "output: \(second.output)")
        #expect(
            second.output
                == "walkscape: the saved progress in \(file.path) is unreadable (nextIndex -1 is outside 0...5); start again with --restart\n"
        )
    }

    // MARK: Item 17: messages that say the right thing

    @Test func everyTourCommandAcceptsTheTourJSONFileForItsFolder() throws {
        let manifest = Self.demo.appendingPathComponent("tour.json").path
        let lint = try runWalkscape(["lint", manifest])
        #expect(lint.status == 0, "\(lint.stderr)")
        #expect(lint.stdout.hasSuffix("\(Self.demo.path): no problems found\n"))
        let preview = try runWalkscape(["preview", manifest, "--fast", "--no-audio"])
        #expect(preview.status == 0, "\(preview.stderr)")
        #expect(preview.stdout.contains("points heard 5/5"))
        let out = try TemporaryDirectory()
        let map = try runWalkscape(["map", manifest, "-o", out.file("map.svg").path])
        #expect(map.status == 0, "\(map.stderr)")
        // Another file is not a tour, and the message says what to name instead.
        let trace = Self.demo.appendingPathComponent("traces/walk.nmea").path
        expectOneLine(
            try runWalkscape(["lint", trace]), status: 64,
            "walkscape: \(trace): a file, not a tour folder (name the folder that holds tour.json)\n")
    }

    @Test func aPreviewWhereNoFixIsUsableSaysWhyAndFails() throws {
        // Every fix of the demo trace has an error estimate above 0.5 m: nothing can trigger.
        let r = try runWalkscape(["preview", Self.demo.path, "--fast", "--no-audio", "--max-error", "0.5"])
        #expect(r.status == 65)
        let trace = Self.demo.appendingPathComponent("traces/walk.nmea").path
        #expect(r.stderr.hasPrefix("walkscape: \(trace): no fix passes the quality filter ("), "\(r.stderr)")
        #expect(r.stderr.contains("tooInaccurate"))
    }

    @Test func helpForAnUnknownCommandIsAUsageError() throws {
        let r = try runWalkscape(["help", "nosuch"])
        #expect(r.status == 64)
        // One line naming the commands there are (the list grows with the commands).
        #expect(
            r.stderr.hasPrefix(
                "walkscape: no command 'nosuch' (commands: doctor, preview, lint, map, play, walk, trace, "),
            "\(r.stderr)")
        #expect(r.stderr.hasSuffix(")\n") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        let nested = try runWalkscape(["help", "preview", "nosuch"])
        #expect(nested.status == 64)
        #expect(nested.stderr == "walkscape: preview has no subcommands (no help for 'nosuch')\n")
        let known = try runWalkscape(["help", "preview"])
        #expect(known.status == 0)
        #expect(known.stdout.contains("USAGE: walkscape preview"))
    }

    @Test func anInlineCommentAfterAConfigValueIsNotPartOfIt() throws {
        let home = try TemporaryDirectory()
        try home.write(
            "config/config",
            """
            gpsd-host = 127.0.0.5   # the handheld's own gpsd
            gpsd-port = 3005 # not the default
            audio-device = "hw:1 #2"  # quoted: the # inside is kept
            api-url = https://api.example.org/#v2
            """)
        let r = try runWalkscape(["doctor", "--json"], home: home)
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        let checks = try #require(report["checks"] as? [[String: Any]])
        func detail(_ name: String) -> String {
            checks.first { $0["name"] as? String == name }?["detail"] as? String ?? ""
        }
        #expect(detail("gpsd").contains("127.0.0.5:3005"), "\(detail("gpsd"))")
        #expect(detail("audio").contains("'hw:1 #2'"), "\(detail("audio"))")
        // The `#v2` is kept as part of the value (and then refused: a base URL has no fragment).
        #expect(detail("api").hasPrefix("'https://api.example.org/#v2' has a query or fragment"), "\(detail("api"))")
    }

    @Test func aBadGPSDPortStopsOnlyWhatUsesGPSD() throws {
        let home = try TemporaryDirectory()
        try home.write("config/config", "gpsd-port = 70000\n")
        let preview = try runWalkscape(["preview", Self.demo.path, "--fast", "--no-audio"], home: home)
        #expect(preview.status == 0, "\(preview.stderr)")
        #expect(preview.stdout.contains("points heard 5/5"))

        let doctor = try runWalkscape(["doctor", "--audio-device", "null"], home: home)
        #expect(doctor.status == 1)
        #expect(
            doctor.stdout.contains(
                "FAIL gpsd    gpsd-port '70000' (from config file) is not a port number (between 1 and 65535)"))
        #expect(doctor.stdout.contains("OK   audio "), "the other checks still run: \(doctor.stdout)")
        #expect(doctor.stderr.isEmpty)

        expectOneLine(
            try runWalkscape(["walk", Self.demo.path, "--no-audio", "--no-input"], home: home), status: 64,
            "walkscape: gpsd-port '70000' (from config file) is not a port number (between 1 and 65535)\n")
        expectOneLine(
            try runWalkscape(
                ["walk", Self.demo.path, "--no-audio", "--no-input"], home: home,
                environment: ["WALKSCAPE_GPSD_PORT": "x"]), status: 64,
            "walkscape: gpsd-port 'x' (from WALKSCAPE_GPSD_PORT) is not a port number")
    }

    @Test func doctorReportsABrokenConfigFileAsAFailLineAndChecksTheRest() throws {
        let home = try TemporaryDirectory()
        try home.write("config/config", "gpsd-host = localhost\nthis is not a setting\n")
        let r = try runWalkscape(["doctor", "--audio-device", "null"], home: home)
        #expect(r.status == 1)
        #expect(
            r.stdout.contains("FAIL config  \(home.path)/config/config: line 2: expected key = value"), "\(r.stdout)")
        #expect(r.stdout.contains("OK   audio "))
        #expect(r.stderr.isEmpty)
        // Commands that read settings still stop on it: a misspelt key may be the one they need.
        expectOneLine(
            try runWalkscape(["preview", Self.demo.path, "--fast", "--no-audio"], home: home), status: 64,
            "walkscape: \(home.path)/config/config: line 2: expected key = value\n")
        // A bad value no other check uses is reported on the same line.
        try home.write("config/config", "max-error = lots\n")
        let values = try runWalkscape(["doctor", "--audio-device", "null"], home: home)
        #expect(values.status == 1)
        #expect(
            values.stdout.contains(
                "FAIL config  max-error 'lots' (from config file) is not a number between 0.1 and 10000 metres"),
            "\(values.stdout)")
    }

    /// `doctor` on a real pseudo-terminal, so the only thing that decides colour is the environment.
    func doctorOnATerminal(_ environment: [String: String]) async throws -> String {
        let home = try TemporaryDirectory()
        let child = try ChildProcess(
            TestPaths.walkscape, ["doctor", "--home", home.path, "--audio-device", "null"],
            environment: environment, pty: true)
        _ = await child.wait(timeout: 20)
        return child.output
    }

    @Test func colourOnlyOnATerminalThatCanShowIt() async throws {
        let escape = "\u{1B}["
        #expect(try await doctorOnATerminal(["TERM": "xterm-256color", "NO_COLOR": ""]).contains(escape))
        #expect(try await !doctorOnATerminal(["TERM": "dumb", "NO_COLOR": ""]).contains(escape))
        #expect(try await !doctorOnATerminal(["TERM": "", "NO_COLOR": ""]).contains(escape))
        #expect(try await !doctorOnATerminal(["TERM": "xterm-256color", "NO_COLOR": "1"]).contains(escape))
    }

    @Test func aWalkOnADumbTerminalPrintsPlainLinesNotAScreen() async throws {
        let home = try TemporaryDirectory()
        let port = try freeTCPPort()  // no gpsd: the walk says so and waits
        let child = try ChildProcess(
            TestPaths.walkscape,
            ["walk", Self.demo.path, "--no-audio", "--gpsd-port", "\(port)", "--home", home.path],
            environment: ["TERM": "dumb", "NO_COLOR": ""], pty: true)
        #expect(await child.waitForOutput("gps: no gpsd", timeout: 20), "output: \(child.output)")
        child.signal(SIGINT)
        _ = await child.wait(timeout: 10)
        #expect(!child.output.contains("\u{1B}["), "no escape sequence reaches a dumb terminal: \(child.output)")
    }

    /// A bad value from the environment is quoted back on one short line: a newline in it split
    /// the error, and a 100 kB api-url printed three times over.
    @Test func aBadValueIsQuotedBackOnOneShortLine() throws {
        let home = try TemporaryDirectory()
        for value in ["http://a\nwalkscape: FAKE", String(repeating: "x", count: 100_000)] {
            let result = try runWalkscape(["tours"], home: home, environment: ["WALKSCAPE_API_URL": value], timeout: 30)
            #expect(result.status == 64)
            #expect(result.stderr.hasPrefix("walkscape: '"))
            #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr.prefix(300))")
            #expect(result.stderr.utf8.count < 300, "\(result.stderr.utf8.count) bytes")
        }
    }

    /// Language tags are case-insensitive: `-l EN` is the tour's `en` (it was "no language 'EN'").
    @Test func aLanguageTagInAnotherCaseIsTheTourOwn() throws {
        let home = try TemporaryDirectory()
        let result = try runWalkscape(
            ["preview", Self.demo.path, "-l", "IT", "--fast", "--no-audio"], home: home, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Firenze: dal Duomo a Palazzo Pitti"), "\(result.stdout.prefix(400))")
        // The configured language too.
        let configured = try runWalkscape(
            ["preview", Self.demo.path, "--fast", "--no-audio"], home: home, environment: ["WALKSCAPE_LANGUAGE": "IT"],
            timeout: 60)
        #expect(configured.status == 0, "\(configured.stderr)")
        #expect(configured.stdout.contains("Firenze: dal Duomo a Palazzo Pitti"), "\(configured.stdout.prefix(400))")
    }

    /// A file or folder that is not there is "not found" (66) for every command that reads one:
    /// they gave 64, 65 and 66 for the same mistake.
    @Test func aFileOrFolderThatIsNotThereIsNotFoundForEveryCommand() throws {
        let home = try TemporaryDirectory()
        let trace = Self.demo.appendingPathComponent("traces/walk.nmea").path
        let commands: [[String]] = [
            ["lint", "nosuchtour"], ["lint", "./nosuchtour"], ["preview", "./nosuchtour", "--trace", trace, "--fast"],
            ["preview", Self.demo.path, "--trace", "nosuch.nmea", "--fast"], ["trace", "nosuch.nmea"],
            ["play", "nosuch.mp3", "--no-audio"], ["walk", "./nosuchtour", "--no-audio"],
        ]
        for arguments in commands {
            let result = try runWalkscape(arguments, home: home, timeout: 30)
            #expect(result.status == 66, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("walkscape: "), "\(arguments): \(result.stderr)")
        }
    }

    /// A tour folder, or its tour.json, that is a link to nothing is not found (66), and the link is
    /// named with where it leads. The folder's link was a usage error ("no such file", 64), and a
    /// folder whose tour.json led nowhere was "not a tour folder (no tour.json)" (64).
    @Test func aLinkToNothingIsNotFoundAndSaidToBeALink() throws {
        let home = try TemporaryDirectory()
        let gone = home.url.appendingPathComponent("moved-away").path
        let folderLink = home.url.appendingPathComponent("tour-link").path
        #expect(symlink(gone, folderLink) == 0)
        let folder = home.url.appendingPathComponent("tour")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let manifestLink = folder.appendingPathComponent("tour.json").path
        #expect(symlink(gone + "/tour.json", manifestLink) == 0)
        let trace = Self.demo.appendingPathComponent("traces/walk.nmea").path
        for (target, link, to) in [(folderLink, folderLink, gone), (folder.path, manifestLink, gone + "/tour.json")] {
            for arguments in [
                ["lint", target], ["preview", target, "--trace", trace, "--fast"], ["walk", target, "--no-audio"],
                ["map", target, "-o", home.url.appendingPathComponent("m.svg").path],
            ] {
                let result = try runWalkscape(arguments, home: home, timeout: 30)
                #expect(result.status == 66, "\(arguments): \(result.stderr)")
                #expect(
                    result.stderr == "walkscape: \(link): a symbolic link to \(to), which does not exist\n",
                    "\(arguments): \(result.stderr)")
            }
        }
        // A link to nothing on the way to the folder: it was "no such tour folder".
        let through = folderLink + "/demo"
        let onTheWay = try runWalkscape(["lint", through], home: home, timeout: 30)
        #expect(onTheWay.status == 66, "\(onTheWay.stderr)")
        #expect(
            onTheWay.stderr == "walkscape: \(folderLink): a symbolic link to \(gone), which does not exist\n",
            "\(onTheWay.stderr)")
        // Named bare, from the folder it is in: it was "no tour folder or installed tour named".
        let bare = try run(
            TestPaths.walkscape, ["lint", "tour-link", "--home", home.path],
            environment: ["NO_COLOR": "1", "DO_NOT_TRACK": ""], currentDirectory: home.url, timeout: 30)
        #expect(bare.status == 66, "\(bare.stderr)")
        #expect(
            bare.stderr == "walkscape: tour-link: a symbolic link to \(gone), which does not exist\n", "\(bare.stderr)")
        // A narration or a trace named through a link to nothing: it was "no such file".
        for (arguments, name) in [
            (["play", "LINK", "--no-audio"], "narration.mp3"), (["trace", "LINK"], "walk.nmea"),
        ] {
            let link = home.url.appendingPathComponent(name).path
            #expect(symlink(gone + "/" + name, link) == 0)
            let result = try runWalkscape(arguments.map { $0 == "LINK" ? link : $0 }, home: home, timeout: 30)
            #expect(result.status == 66, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.contains("\(link): ")
                    && result.stderr.contains("a symbolic link to \(gone)/\(name), which does not exist"),
                "\(arguments): \(result.stderr)")
        }
    }

    /// A trace for `preview` or `map` named through a link to nothing was "no such trace file";
    /// a narration of a tour folder through one was "does not exist" (a broken folder: 65).
    @Test func aTraceOrANarrationThroughALinkToNothingNamesTheLink() throws {
        let home = try TemporaryDirectory()
        let gone = home.url.appendingPathComponent("gone").path
        let trace = home.url.appendingPathComponent("walk.nmea").path
        #expect(symlink(gone + "/walk.nmea", trace) == 0)
        for arguments in [
            ["preview", Self.demo.path, "--trace", trace, "--fast"],
            ["map", Self.demo.path, "--trace", trace, "-o", home.url.appendingPathComponent("m.svg").path],
        ] {
            let result = try runWalkscape(arguments, home: home, timeout: 30)
            #expect(result.status == 66, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr == "walkscape: \(trace): a symbolic link to \(gone)/walk.nmea, which does not exist\n",
                "\(arguments): \(result.stderr)")
        }
        let folder = home.url.appendingPathComponent("tour")
        try FileManager.default.copyItem(at: Self.demo, to: folder)
        let narration = folder.appendingPathComponent("media/en/01.mp3").path
        try FileManager.default.removeItem(atPath: narration)
        #expect(symlink(gone + "/01.mp3", narration) == 0)
        let preview = try runWalkscape(["preview", folder.path, "--fast"], home: home, timeout: 30)
        #expect(preview.status == 65, "\(preview.stderr)")
        #expect(
            preview.stderr.hasSuffix(
                "media/en/01.mp3 is a symbolic link to \(gone)/01.mp3, which does not exist\n"), "\(preview.stderr)")
        let lint = try runWalkscape(["lint", folder.path], home: home, timeout: 30)
        #expect(lint.stdout.contains("is a symbolic link to \(gone)/01.mp3, which does not exist"), "\(lint.stdout)")
    }

    /// An empty file name and a link that leads round in a loop are said as what they are (the
    /// empty name was read as the current folder, the loop as "no such tour folder").
    @Test func anEmptyNameAndALinkLoopAreSaidAsSuch() throws {
        let home = try TemporaryDirectory()
        let trace = try runWalkscape(["trace", ""], home: home, timeout: 30)
        #expect(trace.status == 64 && trace.stderr.contains("an empty name is no trace file"), "\(trace.stderr)")
        let play = try runWalkscape(["play", "", "--no-audio"], home: home, timeout: 30)
        #expect(play.status == 64 && play.stderr.contains("an empty name is no audio file"), "\(play.stderr)")
        let a = home.url.appendingPathComponent("a").path
        let b = home.url.appendingPathComponent("b").path
        #expect(symlink(b, a) == 0 && symlink(a, b) == 0)
        let lint = try runWalkscape(["lint", a], home: home, timeout: 30)
        #expect(lint.status == 64, "\(lint.stderr)")
        #expect(lint.stderr == "walkscape: \(a): too many levels of symbolic links\n", "\(lint.stderr)")
    }
}

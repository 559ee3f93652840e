import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// How the store's commands look and fail: the live progress line on a terminal, the listing, a
/// second writer, a damaged catalog.
@Suite(.serialized)
struct StoreCommandTests {
    @Test func onATerminalADownloadShowsOneLiveLineWithBytesRateAndTimeLeft() async throws {
        let fixture = TourFixture(slug: "watched-walk", points: 2, audioBytes: 150_000)
        let harness = try await StoreHarness(options: .init(throttleBytesPerSecond: 300_000)) { tours in
            try fixture.write(in: tours)
        }
        let child = try ChildProcess(
            TestPaths.walkscape, ["download", "watched-walk", "--home", harness.home.path],
            environment: ["WALKSCAPE_API_URL": harness.server.baseURL, "NO_COLOR": "1", "TERM": "xterm"],
            pty: true)
        let code = await child.wait(timeout: 30)
        #expect(code == 0, "\(child.output)")
        let output = child.output
        // The fixture's title is "watched-walk (en)"; the line names the title, then the language.
        // The line is redrawn in place (carriage return, erase line), never scrolled.
        let redraws = output.components(separatedBy: "\r\u{1B}[2K").dropFirst()
        #expect(redraws.count >= 3, "\(output.debugDescription)")
        #expect(
            redraws.contains {
                $0.contains("watched-walk (en) (en): ") && $0.contains(" of 300.0 kB (") && $0.contains("/s, ")
                    && $0.contains(" left")
            })
        #expect(!output.contains("done: "), "a terminal gets no line per file")
        #expect(output.contains("Installed watched-walk (en) (en): 2 files fetched"))
    }

    @Test func theInstalledListingSaysWhatIsHereAndASecondWriterIsToldWhoHoldsTheStore() async throws {
        let fixture = TourFixture(slug: "listed-walk", languages: ["en", "it"], points: 2, audioBytes: 100_000)
        let harness = try await StoreHarness(options: .init(throttleBytesPerSecond: 100_000)) { tours in
            try fixture.write(in: tours)
        }
        #expect(try harness.run(["tours", "--installed"]).stdout.contains("No tours installed"))
        #expect(
            !FileManager.default.fileExists(atPath: harness.home.file("data/catalog.sqlite").path),
            "reading created a catalog")
        // The download lasts a second (two files of 100 kB at 100 kB/s each): time for `gc` to start
        // on a busy machine (at 200 kB/s it once found the download done, and the store free).
        let slow = try harness.start(["download", "listed-walk", "-l", "en"])
        #expect(await slow.waitForOutput("2 files", timeout: 20))
        let second = try harness.run(["gc"])
        #expect(second.status == 75)
        #expect(
            second.stderr.contains(
                "another walkscape is changing the tour store (pid \(slow.pid): download listed-walk)"))
        #expect(await slow.wait(timeout: 30) == 0)

        try harness.succeed(["download", "listed-walk", "-l", "it"])
        let rows = try harness.installed()
        #expect(rows.count == 1)
        #expect(rows.first?["slug"] as? String == "listed-walk")
        #expect(rows.first?["id"] as? String == fixture.id)
        #expect(rows.first?["languages"] as? [String] == ["en", "it"])
        #expect((rows.first?["versions"] as? [String: String])?.keys.sorted() == ["en", "it"])
        #expect(rows.first?["bytes"] as? Int == 4 * 100_000 - 2 * 100_000, "identical narration counted twice")
        let table = try harness.run(["tours", "--installed", "-l", "it"]).stdout
        #expect(table.contains("listed-walk (it)") && table.contains("en,it") && table.contains("200.0 kB"))
        // When, as every date at the terminal reads: local time, year first, whatever the locale.
        #expect(table.range(of: #"  \d{4}-\d{2}-\d{2} \d{2}:\d{2}\n"#, options: .regularExpression) != nil, "\(table)")
    }

    @Test func aDamagedCatalogIsOneClearLineEverywhereAndDoctorSaysWhatToDo() async throws {
        let fixture = TourFixture(slug: "broken-walk", points: 1, audioBytes: 1000)
        let harness = try await StoreHarness { tours in try fixture.write(in: tours) }
        try harness.succeed(["download", "broken-walk"])
        let catalog = harness.home.file("data/catalog.sqlite")
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: catalog.path + suffix) }
        try Data(repeating: 0x42, count: 8192).write(to: catalog)
        for arguments in [
            ["tours", "--installed"], ["walk", "broken-walk", "--no-audio"], ["verify"], ["download", "broken-walk"],
        ] {
            let result = try harness.run(arguments, timeout: 30)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.hasPrefix("walkscape: \(catalog.path): cannot be opened as the tour catalog"),
                "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
        }
        let doctor = try harness.run(["doctor"])
        #expect(
            doctor.stdout.contains("FAIL store") && doctor.stdout.contains("move \(catalog.path) aside"),
            "\(doctor.stdout)")
    }

    /// A store folder that is a file (a sync tool's conflict, a mistaken `mv`) is said, where
    /// every reader said the store was empty ("No tours installed", "Nothing to verify", exit 0).
    @Test func aStoreFolderThatIsAFileIsSaidNotTakenForAnEmptyStore() throws {
        let home = try TemporaryDirectory()
        try Data("not a folder".utf8).write(to: home.file("data"))
        for arguments in [["tours", "--installed"], ["verify"], ["gc"], ["remove", "any-walk"]] {
            let result = try runWalkscape(arguments, home: home)
            #expect(result.status == 1, "\(arguments): \(result.stdout)\(result.stderr)")
            #expect(
                result.stderr
                    == "walkscape: \(home.file("data").path): is a regular file, not the tour store's folder; move it aside\n",
                "\(arguments): \(result.stderr)")
        }
    }

    /// A catalog that cannot be opened for writing (here its shared-memory file's name is taken,
    /// as a full disk or a read-only home does): installed tours are listed and walkable, and
    /// doctor warns that nothing can be changed (it said the store was fine).
    @Test func aCatalogThatCannotBeWrittenIsReadAndDoctorWarns() async throws {
        let fixture = TourFixture(slug: "still-walk", points: 1, audioBytes: 1000)
        let harness = try await StoreHarness { tours in try fixture.write(in: tours) }
        try harness.succeed(["download", "still-walk"])
        let catalog = harness.home.file("data/catalog.sqlite")
        try? FileManager.default.removeItem(atPath: catalog.path + "-shm")
        try FileManager.default.createDirectory(atPath: catalog.path + "-shm", withIntermediateDirectories: false)
        let tours = try harness.run(["tours", "--installed"], timeout: 30)
        #expect(tours.status == 0 && tours.stdout.contains("still-walk"), "\(tours.stderr)")
        let doctor = try harness.run(["doctor"], timeout: 60)
        #expect(doctor.stdout.contains("WARN store") && doctor.stdout.contains("read-only"), "\(doctor.stdout)")
    }
}

import Foundation
import TestSupport
import Testing

/// Tab in bash, as a walker presses it: the completion script walkscape generates, sourced into a
/// real bash, completing commands, installed tours (from a real download) and their languages.
@Suite(.serialized)
struct CompletionTests {
    /// COMPREPLY of `_walkscape` for `line` (the word under the cursor last), one per line.
    static func complete(
        _ words: [String], home: TemporaryDirectory, in folder: URL? = nil, environment: [String: String] = [:]
    ) throws -> [String] {
        let script = try runWalkscape(["--generate-completion-script", "bash"])
        #expect(script.status == 0, "\(script.stderr)")
        let scratch = try TemporaryDirectory(prefix: "walkscape-completion")
        let scriptFile = scratch.file("walkscape.bash")
        try Data(script.stdout.utf8).write(to: scriptFile)
        let quoted = ([TestPaths.walkscape.path] + words).map { "'\($0)'" }.joined(separator: " ")
        let line = ([TestPaths.walkscape.path] + words).joined(separator: " ")
        let driver = """
            source '\(scriptFile.path)'
            COMP_WORDS=(\(quoted))
            COMP_CWORD=\(words.count)
            COMP_LINE='\(line)'
            COMP_POINT=${#COMP_LINE}
            _walkscape '\(TestPaths.walkscape.path)' '\(words.last ?? "")' '\(words.dropLast().last ?? "")'
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try run(
            URL(fileURLWithPath: "/bin/bash"), ["--norc", "-c", driver],
            environment: ["WALKSCAPE_HOME": home.path].merging(environment) { _, new in new },
            currentDirectory: folder, timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesCommandsInstalledToursAndTheirLanguages() async throws {
        let north = TourFixture(slug: "north-walk", languages: ["en", "it"], points: 1, audioBytes: 2048)
        let loop = TourFixture(slug: "north-loop", languages: ["de"], points: 1, audioBytes: 2048)
        let other = TourFixture(slug: "harbour", languages: ["fr"], points: 1, audioBytes: 2048)
        let harness = try await StoreHarness(fixtures: [north, loop, other])
        for (slug, languages) in [("north-walk", ["en", "it"]), ("north-loop", ["de"]), ("harbour", ["fr"])] {
            try harness.succeed(["download", slug, "--no-analytics"] + languages.flatMap { ["-l", $0] })
        }
        let dataFolder = harness.home.url.appendingPathComponent("data")
        let before = try FileManager.default.contentsOfDirectory(atPath: dataFolder.path).sorted()
        #expect(try Self.complete(["wa"], home: harness.home) == ["walk"])
        #expect(try Self.complete(["remove", "no"], home: harness.home) == ["north-loop", "north-walk"])
        #expect(try Self.complete(["remove", ""], home: harness.home) == ["harbour", "north-loop", "north-walk"])
        #expect(try Self.complete(["walk", "north-walk", "-l", ""], home: harness.home) == ["en", "it"])
        #expect(try Self.complete(["remove", "harbour", "--language", ""], home: harness.home) == ["fr"])
        // No tour named yet: every installed language.
        #expect(try Self.complete(["preview", "-l", ""], home: harness.home) == ["de", "en", "fr", "it"])
        // walk and preview also take tour folders: a folder with a tour.json, and folders to go into.
        let folders = try Self.complete(["preview", "tou"], home: harness.home, in: TestPaths.packageRoot)
        #expect(folders == ["tours/"])
        let demo = try Self.complete(["walk", "tours/de"], home: harness.home, in: TestPaths.packageRoot)
        #expect(demo == ["tours/demo", "tours/demo/"])
        // Tab wrote nothing beside the catalog (SQLite makes -wal and -shm files for a reader of a
        // WAL database unless told the file will not change under it).
        #expect(try FileManager.default.contentsOfDirectory(atPath: dataFolder.path).sorted() == before)
        // `--home ~/...` as typed: bash hands the tilde over unexpanded.
        let tilde = "~/" + harness.home.url.lastPathComponent
        let parent = harness.home.url.deletingLastPathComponent().path
        #expect(
            try Self.complete(
                ["remove", "--home", tilde, "har"], home: harness.home,
                environment: ["HOME": parent, "WALKSCAPE_HOME": parent + "/no-such-home"])
                == ["harbour"])
    }

    @Test func withNothingInstalledTourCompletionOffersNothingAndWritesNothing() throws {
        let home = try TemporaryDirectory(prefix: "walkscape-completion-home")
        #expect(try Self.complete(["remove", ""], home: home) == [])
        #expect(try Self.complete(["walk", "x", "-l", ""], home: home) == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path) == [])
    }
}

import Foundation
import GRDB
import TestSupport
import Testing

/// Loudness of installed tours (docs/loudness.md): measured once at download, kept in the catalog
/// with the blob's hash, reported by `tours --installed`, `preview --json` and `lint`; a tour
/// installed before walkscape measured is measured at its first use and kept.
@Suite(.serialized)
struct LoudnessStoreTests {
    static var demoTrace: String { TestPaths.demoTour.appendingPathComponent("traces/walk.nmea").path }

    func loudnessRows(_ harness: StoreHarness) throws -> [String: Double?] {
        let queue = try DatabaseQueue(path: harness.home.file("data/catalog.sqlite").path)
        return try queue.read { db in
            var rows: [String: Double?] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT sha256, integrated FROM loudness") {
                rows[row["sha256"]] = row["integrated"] as Double?
            }
            return rows
        }
    }

    func clearLoudness(_ harness: StoreHarness) throws {
        let queue = try DatabaseQueue(path: harness.home.file("data/catalog.sqlite").path)
        try queue.inDatabase { db in try db.execute(sql: "DELETE FROM loudness") }
    }

    func pointLevels(_ harness: StoreHarness) throws -> [Int: [String: Any]] {
        let preview = try harness.succeed([
            "preview", StoreHarness.demoSlug, "--trace", Self.demoTrace, "--fast", "--json",
        ])
        let report = try #require(try JSONSerialization.jsonObject(with: preview.stdoutData) as? [String: Any])
        #expect(report["loudnessTarget"] as? String == "-16.0 LUFS")
        var levels: [Int: [String: Any]] = [:]
        for point in report["points"] as? [[String: Any]] ?? [] {
            levels[point["order"] as? Int ?? 0] = point["loudness"] as? [String: Any]
        }
        return levels
    }

    /// Cuts the tour folder's narration at `path` to 60 % of its bytes (and writes the same bytes
    /// to `copyTo` too).
    static func cutShort(_ path: String, in folder: URL, copyTo other: String? = nil) throws {
        let target = folder.appendingPathComponent(path)
        let cut = try Data(contentsOf: target)
        let kept = cut.prefix(cut.count * 6 / 10)
        try kept.write(to: target)
        if let other { try kept.write(to: folder.appendingPathComponent(other)) }
    }

    @Test func aDownloadMeasuresEachNarrationOnceAndEveryReportSaysIt() async throws {
        let harness = try await StoreHarness { tours in
            let demo = try StoreHarness.copyDemo(into: tours)
            /// The narration `name` of the demo run through ffmpeg's `filter`, in its place.
            func refilter(_ name: String, _ filter: String) throws {
                let target = demo.appendingPathComponent("media/en/\(name)")
                let made = tours.appendingPathComponent("made-\(name)")
                try FormatFixtures.ffmpeg([
                    "-i", target.path, "-af", filter, "-c:a", "libmp3lame", "-b:a", "64k", made.path,
                ])
                try FileManager.default.removeItem(at: target)
                try FileManager.default.moveItem(at: made, to: target)
            }
            // Point 3's narration recorded 12 dB quieter; point 4's led in by 3 s of silence.
            try refilter("03.mp3", "volume=-12dB")
            try refilter("04.mp3", "adelay=delays=3000:all=1")
        }
        _ = try harness.succeed(["download", StoreHarness.demoSlug, "-l", "en"])
        // One row per narration blob, keyed as the blob is.
        let rows = try loudnessRows(harness)
        #expect(rows.count == 5)
        let quietHash = try harness.servedHash("media/en/03.mp3", tour: "demo")
        let quietLevel = try #require(rows[quietHash] ?? nil)
        let others = rows.filter { $0.key != quietHash }.compactMap { $0.value }
        #expect(others.count == 4)
        #expect(others.allSatisfy { $0 - quietLevel > 10 }, "\(quietLevel) against \(others)")

        let installed = try harness.installed()
        let en = (installed.first?["loudness"] as? [String: Any])?["en"] as? [String: Any]
        #expect(en?["narrations"] as? Int == 5)
        #expect(en?["measured"] as? Int == 5)

        // preview --json: the quiet point gets about 12 dB more gain than its neighbours.
        let levels = try pointLevels(harness)
        let gains = (1...5).map { levels[$0]?["gainDB"] as? Double ?? .nan }
        #expect(gains[2] - gains[1] > 10 && gains[2] - gains[3] > 10, "gains \(gains)")
        #expect((levels[3]?["integrated"] as? Double).map { abs($0 - quietLevel) < 0.1 } == true)

        // lint names the quiet one, by the name the curator knows.
        let lint = try harness.run(["lint", StoreHarness.demoSlug])
        #expect(lint.stdout.contains("[loudness-outlier]"), "\(lint.stdout)")
        #expect(lint.stdout.contains("03.mp3"), "\(lint.stdout)")
        // And the one led in by silence, from what the download measured and the catalog keeps.
        let leadIn = lint.stdout.split(separator: "\n").filter { $0.contains("[audio-leading-silence]") }
        #expect(leadIn.count == 1 && leadIn.first?.contains("04.mp3") == true, "\(lint.stdout)")
        #expect(leadIn.first?.contains("begins with 3.0 s of silence") == true, "\(lint.stdout)")
    }

    @Test func aTourInstalledBeforeLoudnessWasMeasuredIsMeasuredAtItsFirstPreviewAndKept() async throws {
        let harness = try await StoreHarness { tours in _ = try StoreHarness.copyDemo(into: tours) }
        _ = try harness.succeed(["download", StoreHarness.demoSlug, "-l", "en"])
        let measured = try loudnessRows(harness)
        #expect(measured.count == 5)
        // As an older walkscape left it: the table is there (the migration ran), the rows are not.
        try clearLoudness(harness)
        let en = try harness.installed().first.flatMap { ($0["loudness"] as? [String: Any])?["en"] as? [String: Any] }
        #expect(en?["measured"] as? Int == 0)
        let levels = try pointLevels(harness)
        #expect((1...5).allSatisfy { levels[$0]?["integrated"] is Double })
        let again = try loudnessRows(harness)
        #expect(again.count == 5)
        for (sha, level) in measured { #expect(again[sha] == level, "\(sha)") }
    }
    /// A narration that ends early but plays what it holds (a file cut short on the service) is
    /// named when it is downloaded and by lint of the installed tour, as lint of its folder names
    /// it. The catalog kept no damage, so an installed tour linted clean and download said nothing.
    /// A row measured by an older walkscape (no damage known) is measured again.
    @Test func aNarrationCutShortIsNamedAtDownloadAndByLintOfTheInstalledTour() async throws {
        let harness = try await StoreHarness { tours in
            try Self.cutShort("media/en/03.mp3", in: try StoreHarness.copyDemo(into: tours))
        }
        let download = try harness.succeed(["download", StoreHarness.demoSlug, "-l", "en"])
        let said = download.stdout + download.stderr
        let note = said.split(separator: "\n").first { $0.contains("note: point 3") }
        #expect(note?.contains("damaged: the file is truncated") == true, "\(said)")
        #expect(!said.contains("does not play"), "\(said)")

        func lintNamesTheCut() throws {
            let lint = try harness.run(["lint", StoreHarness.demoSlug])
            #expect(lint.status == 1, "\(lint.stdout)\(lint.stderr)")
            let line = lint.stdout.split(separator: "\n").first { $0.contains("[audio-damaged]") }
            #expect(line?.contains("03.mp3") == true, "\(lint.stdout)")
            #expect(lint.stdout.split(separator: "\n").filter { $0.contains("[audio-damaged]") }.count == 1)
        }
        try lintNamesTheCut()

        // As an older walkscape left the rows: measured, no damage known.
        let queue = try DatabaseQueue(path: harness.home.file("data/catalog.sqlite").path)
        try queue.inDatabase { db in try db.execute(sql: "UPDATE loudness SET damage = NULL, method = NULL") }
        // Their levels still count as measured (they were hidden until measured again).
        let en = try harness.installed().first.flatMap { ($0["loudness"] as? [String: Any])?["en"] as? [String: Any] }
        #expect(en?["measured"] as? Int == 5, "\(String(describing: en))")
        try lintNamesTheCut()
        // Measured again and kept, with today's method.
        let kept = try queue.inDatabase { db in
            try String?.fetchAll(db, sql: "SELECT method FROM loudness WHERE damage IS NOT NULL")
        }
        #expect(kept.count == 1 && kept.allSatisfy { $0 != nil }, "\(kept)")
    }

    /// Two languages whose narrations of a point are the same bytes, cut short, are one file in
    /// the store: lint of the installed tour named the first language's only, so the curator fixed
    /// one and heard of the other later.
    @Test func aCutNarrationSharedByTwoLanguagesIsNamedInEach() async throws {
        let harness = try await StoreHarness { tours in
            try Self.cutShort("media/en/03.mp3", in: try StoreHarness.copyDemo(into: tours), copyTo: "media/it/03.mp3")
        }
        _ = try harness.succeed(["download", StoreHarness.demoSlug, "-l", "en", "-l", "it"])
        let lint = try harness.run(["lint", StoreHarness.demoSlug])
        let damaged = lint.stdout.split(separator: "\n").filter { $0.contains("[audio-damaged]") }
        #expect(damaged.count == 2, "\(lint.stdout)")
        #expect(damaged.contains { $0.contains("03.mp3 (narration of point 3 in 'en')") }, "\(damaged)")
        #expect(damaged.contains { $0.contains("03.mp3 (narration of point 3 in 'it')") }, "\(damaged)")
        let json = try harness.run(["lint", StoreHarness.demoSlug, "--json"])
        let findings = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [[String: Any]])
        #expect(
            Set(findings.filter { $0["check"] as? String == "audio-damaged" }.compactMap { $0["language"] as? String })
                == ["en", "it"])
    }
}

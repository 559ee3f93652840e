import Foundation
import GRDB
import TestSupport
import Testing

/// Whether this machine lets the tests mount file systems (root with CAP_SYS_ADMIN).
enum Mounts {
    static let available: Bool = {
        guard getuid() == 0, let dir = try? TemporaryDirectory() else { return false }
        let target = dir.file("probe")
        try? FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        guard
            (try? run(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=64k", "tmpfs", target.path]))?
                .status == 0
        else { return false }
        _ = try? run(URL(fileURLWithPath: "/bin/umount"), [target.path])
        return true
    }()
}

/// A store on a read-only file system or a full disk says so, where SQLite said "unable to open
/// database file" and "disk I/O error". Needs mounts (root with CAP_SYS_ADMIN, as here and in CI).
@Suite(.serialized, .enabled(if: Mounts.available))
struct DiskTroubleTests {
    @Test func aStoreOnAReadOnlyFileSystemOrAFullDiskSaysWhich() async throws {
        let harness = try await StoreHarness { tours in _ = try StoreHarness.copyDemo(into: tours) }
        try harness.succeed(["download", StoreHarness.demoSlug, "-l", "en"])
        let slug = StoreHarness.demoSlug
        let scratch = try TemporaryDirectory()

        // The same home, read-only.
        let readOnly = scratch.file("read-only")
        try FileManager.default.createDirectory(at: readOnly, withIntermediateDirectories: true)
        #expect(try run(URL(fileURLWithPath: "/bin/mount"), ["--bind", harness.home.path, readOnly.path]).status == 0)
        defer { _ = try? run(URL(fileURLWithPath: "/bin/umount"), [readOnly.path]) }
        #expect(try run(URL(fileURLWithPath: "/bin/mount"), ["-o", "remount,ro,bind", readOnly.path]).status == 0)
        let removed = try runWalkscape(["remove", slug, "--home", readOnly.path])
        #expect(removed.status == 1)
        #expect(
            removed.stderr
                == "walkscape: \(readOnly.path)/data/catalog.sqlite: cannot be opened as the tour catalog (Read-only file system)\n",
            "\(removed.stderr)")

        // What only reads still works there: the tour is listed and previewed (as walked). It was refused with
        // the same line once the line named the trouble (the read-only fallback looked for
        // "damaged" only).
        let listed = try runWalkscape(["tours", "--installed", "--home", readOnly.path])
        #expect(listed.status == 0 && listed.stdout.contains(slug), "\(listed.stdout)\(listed.stderr)")
        let trace = TestPaths.demoTour.appendingPathComponent("traces/walk.nmea").path
        let previewed = try runWalkscape(["preview", slug, "--trace", trace, "--fast", "--home", readOnly.path])
        #expect(previewed.status == 0, "\(previewed.stderr)")
        #expect(previewed.stdout.contains("points heard 5/5"), "\(previewed.stdout)")

        // A copy of it on a disk with no room left, its catalog as a walkscape before this one's
        // last migration left it (a walker who upgraded and whose disk then filled).
        let older = scratch.file("older.sqlite")
        try FileManager.default.copyItem(at: harness.home.file("data/catalog.sqlite"), to: older)
        try DatabaseQueue(path: older.path).inDatabase { db in
            try db.execute(
                sql: """
                    ALTER TABLE loudness DROP COLUMN damage; ALTER TABLE loudness DROP COLUMN method;
                    ALTER TABLE loudness DROP COLUMN leadingSilence; ALTER TABLE loudness DROP COLUMN trailingSilence;
                    ALTER TABLE loudness DROP COLUMN onlyChannel;
                    DELETE FROM grdb_migrations
                        WHERE identifier IN ('v3-loudness-damage', 'v4-loudness-silence');
                    """)
        }
        let full = scratch.file("full")
        try FileManager.default.createDirectory(at: full, withIntermediateDirectories: true)
        #expect(
            try run(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=1m", "tmpfs", full.path]).status
                == 0)
        defer { _ = try? run(URL(fileURLWithPath: "/bin/umount"), [full.path]) }
        let data = full.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: older, to: data.appendingPathComponent("catalog.sqlite"))
        _ = try run(URL(fileURLWithPath: "/bin/dd"), ["if=/dev/zero", "of=\(full.path)/filler", "bs=4k", "count=1024"])
        let onFull = try runWalkscape(["remove", slug, "--home", full.path])
        #expect(onFull.status == 1)
        #expect(
            onFull.stderr.hasSuffix("catalog.sqlite: cannot be opened as the tour catalog (No space left on device)\n"),
            "\(onFull.stderr)")
        let listedOnFull = try runWalkscape(["tours", "--installed", "--json", "--home", full.path])
        #expect(listedOnFull.status == 0, "\(listedOnFull.stderr)")
        let tours = try JSONSerialization.jsonObject(with: listedOnFull.stdoutData) as? [[String: Any]]
        #expect(tours?.first?["slug"] as? String == slug, "\(listedOnFull.stdout)")
        // Its narrations' loudness, measured before the migration, is still known.
        let en = (tours?.first?["loudness"] as? [String: Any])?["en"] as? [String: Any]
        #expect(en?["measured"] as? Int == 5, "\(listedOnFull.stdout)")
        // Unmounted before the scratch folder goes (its removal would stop at a mount).
        for mount in [readOnly, full] { _ = try? run(URL(fileURLWithPath: "/bin/umount"), [mount.path]) }
        withExtendedLifetime(scratch) {}
    }
}

import Foundation
import GRDB
import TestSupport
import Testing

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
        try Mounts.tmpfs(at: full, size: "1m")
        defer { Mounts.unmount(full) }
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

    /// The commands that free space run on a disk another program filled: the store keeps a
    /// megabyte aside and gives it up to record what they delete. `remove` and `gc` refused to
    /// run (the catalog could not be opened, or written), and the walker had to find something
    /// else to delete (an adversarial pass on the store).
    @Test func removeAndGCFreeSpaceOnADiskAnotherProgramFilled() async throws {
        let harness = try await StoreHarness(fixtures: [
            TourFixture(slug: "crowded-walk", points: 3, audioBytes: 200_000),
            TourFixture(slug: "other-walk", points: 1, audioBytes: 150_000),
        ])
        let home = try TemporaryDirectory()
        let data = home.file("data")
        try Mounts.tmpfs(at: data, size: "24m")
        defer { Mounts.unmount(data) }
        let environment = ["WALKSCAPE_API_URL": harness.server.baseURL]
        for slug in ["crowded-walk", "other-walk"] {
            let downloaded = try runWalkscape(["download", slug], home: home, environment: environment)
            #expect(downloaded.status == 0, "\(downloaded.stderr)")
        }
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("reserve").path))
        // Another program fills the disk to its last block.
        _ = try run(URL(fileURLWithPath: "/bin/dd"), ["if=/dev/zero", "of=\(data.path)/filler", "bs=4k"])
        #expect(Self.free(data) < 4096)

        let removed = try runWalkscape(["remove", "crowded-walk"], home: home, environment: environment)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout.contains("freed 600.0 kB"), "\(removed.stdout)")
        // What it freed took the reserve back: the next command that frees space can run too.
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("reserve").path))
        // An interrupted download's part file, for gc, and the disk filled again.
        try Data(repeating: 3, count: 50_000).write(to: data.appendingPathComponent("partial/0123.part"))
        _ = try run(URL(fileURLWithPath: "/bin/dd"), ["if=/dev/zero", "of=\(data.path)/filler2", "bs=4k"])
        #expect(Self.free(data) < 4096)
        let gc = try runWalkscape(["gc"], home: home)
        #expect(gc.status == 0, "\(gc.stderr)")
        #expect(gc.stdout.contains("1 interrupted download"), "\(gc.stdout)")
        let listed = try runWalkscape(["tours", "--installed", "--json"], home: home)
        let tours = try JSONSerialization.jsonObject(with: listed.stdoutData) as? [[String: Any]]
        #expect(tours?.map { $0["slug"] as? String } == ["other-walk"], "\(listed.stdout)")
        let verify = try runWalkscape(["verify"], home: home)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        // A gc with nothing to collect on the full disk gives the reserve back all the same: the
        // next remove there must run too.
        let idle = try runWalkscape(["gc"], home: home)
        #expect(idle.status == 0 && idle.stdout.contains("Freed 0 B"), "\(idle.stdout)\(idle.stderr)")
        _ = try run(URL(fileURLWithPath: "/bin/dd"), ["if=/dev/zero", "of=\(data.path)/filler3", "bs=4k"])
        let removedOther = try runWalkscape(["remove", "other-walk"], home: home)
        #expect(removedOther.status == 0, "\(removedOther.stderr)")

        // Something else under the reserve's name (a folder; a file cut short by a crash) is no
        // reserve: it is made again, in its place, once the disk has room.
        try? FileManager.default.removeItem(at: data.appendingPathComponent("reserve"))
        try FileManager.default.createDirectory(
            at: data.appendingPathComponent("reserve/inside"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: data.appendingPathComponent("reserve.new/inside"), withIntermediateDirectories: true)
        // The room the filler leaves once it goes is enough to keep a megabyte aside again.
        try FileManager.default.removeItem(at: data.appendingPathComponent("filler"))
        try FileManager.default.removeItem(at: data.appendingPathComponent("filler2"))
        try FileManager.default.removeItem(at: data.appendingPathComponent("filler3"))
        let again = try runWalkscape(["gc"], home: home)
        #expect(again.status == 0, "\(again.stderr)")
        let reserve = try FileManager.default.attributesOfItem(atPath: data.appendingPathComponent("reserve").path)
        #expect(reserve[.type] as? FileAttributeType == .typeRegular && reserve[.size] as? Int == 1 << 20)
        Mounts.unmount(data)
        withExtendedLifetime(home) {}
    }

    static func free(_ folder: URL) -> Int64 {
        var info = statvfs()
        guard statvfs(folder.path, &info) == 0 else { return -1 }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }
}

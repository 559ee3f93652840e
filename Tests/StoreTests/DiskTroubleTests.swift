import Foundation
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
        let fixture = TourFixture(slug: "small-walk", points: 1, audioBytes: 1000)
        let harness = try await StoreHarness { tours in try fixture.write(in: tours) }
        try harness.succeed(["download", "small-walk"])
        let scratch = try TemporaryDirectory()

        // The same home, read-only.
        let readOnly = scratch.file("read-only")
        try FileManager.default.createDirectory(at: readOnly, withIntermediateDirectories: true)
        #expect(try run(URL(fileURLWithPath: "/bin/mount"), ["--bind", harness.home.path, readOnly.path]).status == 0)
        defer { _ = try? run(URL(fileURLWithPath: "/bin/umount"), [readOnly.path]) }
        #expect(try run(URL(fileURLWithPath: "/bin/mount"), ["-o", "remount,ro,bind", readOnly.path]).status == 0)
        let removed = try runWalkscape(["remove", "small-walk", "--home", readOnly.path])
        #expect(removed.status == 1)
        #expect(
            removed.stderr
                == "walkscape: \(readOnly.path)/data/catalog.sqlite: cannot be opened as the tour catalog (Read-only file system)\n",
            "\(removed.stderr)")

        // A copy of it on a disk with no room left.
        let full = scratch.file("full")
        try FileManager.default.createDirectory(at: full, withIntermediateDirectories: true)
        #expect(
            try run(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=1m", "tmpfs", full.path]).status
                == 0)
        defer { _ = try? run(URL(fileURLWithPath: "/bin/umount"), [full.path]) }
        let data = full.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: harness.home.file("data/catalog.sqlite"), to: data.appendingPathComponent("catalog.sqlite"))
        _ = try run(URL(fileURLWithPath: "/bin/dd"), ["if=/dev/zero", "of=\(full.path)/filler", "bs=4k", "count=1024"])
        let onFull = try runWalkscape(["remove", "small-walk", "--home", full.path])
        #expect(onFull.status == 1)
        #expect(
            onFull.stderr.hasSuffix("catalog.sqlite: cannot be opened as the tour catalog (No space left on device)\n"),
            "\(onFull.stderr)")
        // Unmounted before the scratch folder goes (its removal would stop at a mount).
        for mount in [readOnly, full] { _ = try? run(URL(fileURLWithPath: "/bin/umount"), [mount.path]) }
        withExtendedLifetime(scratch) {}
    }
}

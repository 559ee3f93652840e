import Foundation

/// File systems mounted by the tests (a tmpfs to fill, or to make read-only): root with
/// CAP_SYS_ADMIN, as here and in CI.
public enum Mounts {
    /// Whether this machine lets the tests mount file systems.
    public static let available: Bool = {
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

    /// `mount` said no.
    public struct Refused: Error, CustomStringConvertible {
        public let description: String
    }

    /// Mounts a tmpfs of `size` (in mount's words: "1m") at `folder`, made if missing.
    public static func tmpfs(at folder: URL, size: String) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try mount(["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", folder.path])
    }

    /// Makes the file system mounted at `folder` read-only (nothing may hold a file of it open
    /// for writing).
    public static func remountReadOnly(_ folder: URL) throws {
        try mount(["-o", "remount,ro", folder.path])
    }

    /// Unmounts `folder`; `lazily`: at once from the tree, for good once nothing holds it open.
    public static func unmount(_ folder: URL, lazily: Bool = false) {
        _ = try? run(URL(fileURLWithPath: "/bin/umount"), (lazily ? ["-l"] : []) + [folder.path])
    }

    private static func mount(_ arguments: [String]) throws {
        let mounted = try run(URL(fileURLWithPath: "/bin/mount"), arguments)
        guard mounted.status == 0 else {
            throw Refused(description: "mount \(arguments.joined(separator: " ")): \(mounted.stderr)")
        }
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Why the disk will not take a write to these files, as the system would say it (an `errno`):
/// SQLite reports a read-only file system or a disk with a few kilobytes left as "unable to open
/// database file" or "disk I/O error", which names neither. 0 when nothing visible stops it.
public enum DiskTrouble {
    /// Below this much room, SQLite cannot make its write-ahead log and shared memory.
    static let leastRoom: UInt64 = 64 * 1024

    public static func errno(writing files: [URL]) -> Int32 {
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max {
            for file in files {
                var status = stat()
                if stat(file.path, &status) == 0, UInt64(status.st_size) >= UInt64(limit.rlim_cur) { return EFBIG }
            }
        }
        guard var folder = files.first?.deletingLastPathComponent() else { return 0 }
        // The nearest folder there is (the file's own may not be made yet).
        while !FileManager.default.fileExists(atPath: folder.path), folder.path != "/" {
            folder = folder.deletingLastPathComponent()
        }
        var disk = statvfs()
        guard statvfs(folder.path, &disk) == 0 else { return 0 }
        if disk.f_flag & UInt(ST_RDONLY) != 0 { return EROFS }
        // Root may write into the blocks reserved for it; anyone else stops where they begin.
        let blocks = getuid() == 0 ? disk.f_bfree : disk.f_bavail
        if UInt64(blocks) * UInt64(disk.f_frsize) < leastRoom { return ENOSPC }
        return 0
    }
}

import FileAccess
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A megabyte the store keeps aside (`reserve` in the data folder), given up when a command that
/// frees space (`remove`, `gc`) finds the disk full: SQLite needs room to record what they delete
/// (its log, its shared memory), and on a disk another program had filled they could not run at
/// all (the catalog could not be opened, or written); the walker had to find something else to
/// delete. Made by a command that changes the store while the disk has room to spare; taken back
/// by the command that gave it up, when what it freed leaves room.
public enum SpaceReserve {
    public static let bytes = 1 << 20
    /// A new reserve is made only while this much is free: it never takes a disk's last megabytes.
    public static let freeToMake: Int64 = 16 << 20
    /// What a command that gave the reserve up needs free to take it back: the reserve's own
    /// megabyte, so that one which freed nothing (a `gc` with nothing to collect) gives it back all
    /// the same (a block more for its name kept it from that, and the next `remove` on the full
    /// disk could not run), and a `remove` on a full disk keeps the next one possible.
    public static let freeToTakeBack = Int64(bytes)

    /// Whether a reserve is in place: a regular file of its size (a file cut short by a crash, or
    /// anything else under its name, is not one, and is made again).
    static func isInPlace(_ location: StoreLocation) -> Bool {
        var info = stat()
        return lstat(location.reserve.path, &info) == 0 && FileKind(mode: info.st_mode) == .regular
            && Int64(info.st_size) == Int64(bytes)
    }

    /// Makes the reserve when it is not in place and the disk has `needing` bytes free: best
    /// effort, silent.
    public static func replenish(_ location: StoreLocation, needing: Int64 = freeToMake) {
        guard !isInPlace(location), let free = FreeSpace.available(at: location.dataFolder), free >= needing else {
            return
        }
        let path = location.reserve.path
        let made = path + ".new"
        // What a run stopped half-way left, or anything else under the name (a folder kept a
        // reserve from ever being made); a link goes, not what it leads to.
        try? FileManager.default.removeItem(atPath: made)
        let fd = open(made, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        // Bytes that no file system compresses or leaves sparse: its blocks must be the disk's,
        // to be given back. A xorshift's, not the system's random source: 131,072 of its calls
        // took 45 ms of a first download's time.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: getpid())
        let noise = (0..<(bytes / 8)).map { _ -> UInt64 in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        let outcome = noise.withUnsafeBytes { Descriptor.writeAll(fd, $0, at: 0) }
        let synced = outcome.succeeded && fsync(fd) == 0
        close(fd)
        guard synced else {
            unlink(made)
            return
        }
        // Whatever held the name (a folder, a link, a short file) gives way.
        if !isInPlace(location) { _ = try? FileManager.default.removeItem(atPath: path) }
        if rename(made, path) != 0 { unlink(made) }
    }

    /// Gives the reserve up; whether one was there to give.
    @discardableResult
    public static func release(_ location: StoreLocation) -> Bool {
        isInPlace(location) && unlink(location.reserve.path) == 0
    }
}

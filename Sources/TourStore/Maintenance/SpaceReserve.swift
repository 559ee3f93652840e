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
/// delete. Made again by the next command that changes the store while the disk has room.
public enum SpaceReserve {
    public static let bytes = 1 << 20
    /// A new reserve is made only while this much is free: it never takes a disk's last megabytes.
    public static let freeToMake: Int64 = 16 << 20
    /// What a command that gave the reserve up and freed space needs free to take it back: a
    /// `remove` on a full disk keeps the next one possible.
    public static let freeToTakeBack = Int64(bytes) + (256 << 10)

    /// Makes the reserve when it is missing and the disk has `needing` bytes free: best effort,
    /// silent.
    public static func replenish(_ location: StoreLocation, needing: Int64 = freeToMake) {
        let path = location.reserve.path
        guard access(path, F_OK) != 0, let free = FreeSpace.available(at: location.dataFolder), free >= needing
        else { return }
        let made = path + ".new"
        let fd = open(made, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        // Written, not sparse: its blocks are the disk's, to be given back.
        let zeros = [UInt8](repeating: 0, count: bytes)
        let outcome = zeros.withUnsafeBytes { Descriptor.writeAll(fd, $0, at: 0) }
        close(fd)
        if outcome.succeeded { rename(made, path) } else { unlink(made) }
    }

    /// Gives the reserve up; whether there was one to give.
    @discardableResult
    public static func release(_ location: StoreLocation) -> Bool {
        unlink(location.reserve.path) == 0
    }
}

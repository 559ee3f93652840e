#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Asks the kernel to start writing a file's range to disk without waiting for it
/// (`sync_file_range(SYNC_FILE_RANGE_WRITE)` on Linux). Glibc declares it only under _GNU_SOURCE,
/// which Swift's Glibc module is not built with, so it is looked up at run time; where it does not
/// exist this does nothing and the final fsync simply does all the work.
enum Writeback {
    private typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
    private static let syncWrite: UInt32 = 2  // SYNC_FILE_RANGE_WRITE

    private static let syncFileRange: SyncFileRange? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sync_file_range") else { return nil }
        return unsafeBitCast(symbol, to: SyncFileRange.self)
    }()

    static func start(_ fd: Int32, from offset: Int64, count: Int64) {
        // Errors show at the final fsync, which is what decides.
        _ = syncFileRange?(fd, offset, count, syncWrite)
    }
}

#if canImport(Glibc)
    import Glibc
#endif

/// glibc's allocator serves the media chunks (512 KiB) with fresh mmap()s, each faulted in and zeroed
/// page by page and unmapped after one use: about a tenth of the CPU of a fast download. Raising the
/// mmap threshold above the chunk size keeps them in the heap, and a trim threshold well above it keeps
/// the heap from handing them back to the kernel after each use, so freed chunks are reused.
/// Process-wide, so the server's command calls it once at start.
public enum AllocatorTuning {
    /// `M_MMAP_THRESHOLD` and `M_TRIM_THRESHOLD` of <malloc.h>, which Swift's Glibc module does not
    /// export (nor `mallopt`).
    static let mmapThreshold: Int32 = -3
    static let trimThreshold: Int32 = -1

    public static func keepMediaChunksInTheHeap() {
        #if canImport(Glibc)
            typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
            guard let symbol = dlsym(nil, "mallopt") else { return }
            let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
            _ = mallopt(mmapThreshold, 4 << 20)
            _ = mallopt(trimThreshold, 64 << 20)
        #endif
    }

    /// `malloc_trim(0)` (not exported by Swift's Glibc module either): what the arenas hold free
    /// goes back to the system (`MemoryReturn`).
    static func giveBackFreedMemory() {
        #if canImport(Glibc)
            typealias MallocTrim = @convention(c) (Int) -> Int32
            guard let symbol = dlsym(nil, "malloc_trim") else { return }
            _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        #endif
    }
}

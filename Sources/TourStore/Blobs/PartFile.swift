import Crypto
import FileAccess
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A download being written in partial/: appended at a known offset, flushed to disk before it
/// is renamed into the blob store. One writer (one transfer) at a time: Sendable only so that its
/// transfer can hand the final flush to `DiskWait` while it waits for it.
///
/// Where the file system allows it, the bytes go to the disk by direct I/O (`O_DIRECT`), block-
/// aligned stretches from buffers of the part file's own (`DirectWriter`), not through the page
/// cache: the flush at the end then waits for the file's last block and its metadata, not for the
/// megabytes still in memory (docs/store.md, "A download"). Elsewhere (a file system that refuses
/// direct I/O) they are written through the page cache, whose writeback is started every few megabytes.
///
/// What is on disk is always a prefix of what was appended: at most the buffers' bytes, which a
/// kill loses, are not on disk yet, and the next download resumes after what is.
final class PartFile: @unchecked Sendable {
    let url: URL
    private let fd: Int32
    /// Bytes appended (on disk, and in the buffer when there is one); what the next write appends after.
    private(set) var length: Int64
    /// Bytes up to which the kernel has been asked to start writing back (page-cache writes only).
    private var writebackStarted: Int64 = 0
    /// How much is appended before its writeback is started: the flush at the end then waits for
    /// the last stretch only, not for the whole file, and the page cache never holds much of it dirty.
    static let writebackStep: Int64 = 8 << 20

    private let direct: DirectWriter?

    /// `direct: false` writes through the page cache even where direct I/O is possible. The direct
    /// writer's buffers come from `buffers`.
    init(url: URL, direct allowDirect: Bool = true, buffers: DirectBuffers = .shared) throws(StoreError) {
        self.url = url
        fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StoreError.system(errno, "create", url.path) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw StoreError.system(code, "read", url.path)
        }
        length = Int64(info.st_size)
        // Started before it is kept: a throw with every property set would run `deinit`, which
        // writes through `fd` and closes it, after the close here.
        let writer = allowDirect ? DirectWriter(path: url.path, fallback: fd, pool: buffers) : nil
        if let writer {
            do { try writer.start(at: length, reading: fd) } catch {
                close(fd)
                throw StoreError.system(error.code, "read", url.path)
            }
        }
        direct = writer
    }

    deinit {
        // A transfer stopped (Ctrl-C, an error) keeps what it received: the next one resumes after it.
        if let direct { _ = direct.finish() }
        close(fd)
    }

    /// Whether the bytes go to the disk by direct I/O (and no direct write was refused).
    var isDirect: Bool { direct.map { !$0.wasRefused } ?? false }

    /// Forgets the bytes from `offset` on.
    func truncate(to offset: Int64) throws(StoreError) {
        if let direct, offset > direct.onDisk {
            // Bytes kept that are still in the buffers reach the file first.
            let code = direct.finish()
            guard code == 0 else {
                keepOnlyWhatIsOnDisk(direct)
                throw StoreError.system(code, "write", url.path)
            }
        }
        direct?.discard()
        guard ftruncate(fd, off_t(offset)) == 0 else { throw StoreError.system(errno, "truncate", url.path) }
        length = offset
        writebackStarted = min(writebackStarted, offset)
        if let direct {
            do { try direct.start(at: offset, reading: fd) } catch {
                throw StoreError.system(error.code, "read", url.path)
            }
        }
    }

    /// Appends `bytes` at the end.
    func append(_ bytes: UnsafeRawBufferPointer) throws(StoreError) {
        if let direct {
            do { try direct.append(bytes) } catch {
                // A full disk took part of a stretch: keep the file at the boundary written last.
                keepOnlyWhatIsOnDisk(direct)
                throw StoreError.system(error.code, "write", url.path)
            }
            length += Int64(bytes.count)
            return
        }
        let outcome = Descriptor.writeAll(fd, bytes, at: length)
        if !outcome.succeeded {
            // A full disk took part of the chunk: keep the file at a chunk boundary we know.
            _ = ftruncate(fd, off_t(length))
            throw StoreError.system(outcome.error, "write", url.path)
        }
        length += Int64(bytes.count)
        if length - writebackStarted >= Self.writebackStep {
            Writeback.start(fd, from: writebackStarted, count: length - writebackStarted)
            writebackStarted = length
        }
    }

    /// Feeds the first `count` bytes of the file to `hasher` (a resumed download re-hashes what it
    /// already has rather than trusting a saved hasher state). Before any append: only what is on
    /// disk is read.
    func hashPrefix(_ count: Int64, into hasher: inout SHA256) throws(StoreError) {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        while offset < count {
            let want = Int(min(Int64(buffer.count), count - offset))
            let code = buffer.withUnsafeMutableBytes {
                Descriptor.readAll(fd, into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<want]), at: offset)
            }
            guard code == 0 else { throw StoreError.system(code, "read", url.path) }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<want])) }
            offset += Int64(want)
        }
    }

    /// Flushes the bytes to the disk: only then may the file be renamed into the store.
    func sync() throws(StoreError) {
        if let direct {
            let code = direct.finish()
            guard code == 0 else {
                keepOnlyWhatIsOnDisk(direct)
                throw StoreError.system(code, "write", url.path)
            }
        }
        guard fsync(fd) == 0 else { throw StoreError.system(errno, "flush", url.path) }
    }

    /// After a failed write: the file is cut back to what is on disk for certain, and the buffers
    /// start again there, so that `length` and the file agree.
    private func keepOnlyWhatIsOnDisk(_ direct: DirectWriter) {
        let kept = direct.onDisk
        _ = ftruncate(fd, off_t(kept))
        length = kept
        try? direct.start(at: kept, reading: fd)
    }
}

/// The direct-I/O half of a part file: a second descriptor opened with `O_DIRECT`, and block-
/// aligned buffers that collect the appended bytes until a whole stretch can be written. A full
/// stretch is written on a queue of the part file's own while the next one fills, so the transfer
/// never waits for the disk unless the disk falls a whole stretch behind. The buffer being filled
/// always starts at a block boundary of the file: a resumed file's last, partial block is read back
/// into it first and written again with what follows.
final class DirectWriter: @unchecked Sendable {
    struct Failure: Error { let code: Int32 }

    /// The alignment of offsets, lengths and the buffer's address that direct I/O asks for (the
    /// logical block size is 512 or 4096 bytes on the disks walkscape runs on).
    static let block = 4096
    /// A stretch written at once.
    static let capacity = 1 << 20

    #if os(Linux) && arch(x86_64)
        static let openFlag: Int32 = 0o40000
    #elseif os(Linux) && (arch(arm64) || arch(arm))
        static let openFlag: Int32 = 0o200000
    #else
        static let openFlag: Int32 = 0
    #endif

    private let fd: Int32
    /// The page cache's descriptor of the same file: for the last, partial block, and for every
    /// write once the file system refused a direct one (`EINVAL`: a file system that opens files for
    /// direct I/O but wants another alignment, or a file size limit that cuts a write short).
    private let fallback: Int32
    /// Set on the queue once a direct write was refused.
    private let refused = Atomic<Bool>(false)
    /// Two buffers: one filling, the other being written (or free).
    private let buffers: [UnsafeMutableRawPointer]
    private let pool: DirectBuffers
    private var filling = 0
    /// The file offset of the filling buffer's first byte (a block boundary), and how many bytes it holds.
    private var from: Int64 = 0
    private var held = 0
    /// Signalled when the buffer that is not filling is free again.
    private let spare = DispatchSemaphore(value: 1)
    private let queue = DispatchQueue(label: "walkscape.part-file")
    /// Set on the queue: the end of what the queue wrote, and its first error.
    private let written = Mutex<(end: Int64, error: Int32)>((0, 0))

    /// Whether a direct write was refused, and the page cache took the writes since.
    var wasRefused: Bool { refused.load(ordering: .relaxed) }

    /// Nil where direct I/O cannot be had (a file system without it, a system or an architecture
    /// whose `O_DIRECT` is not known here).
    /// The buffers come from `pool` and go back to it.
    init?(path: String, fallback: Int32, pool: DirectBuffers = .shared) {
        guard Self.openFlag != 0 else { return nil }
        let fd = open(path, O_WRONLY | O_CLOEXEC | Self.openFlag)
        guard fd >= 0 else { return nil }
        var made: [UnsafeMutableRawPointer] = []
        for _ in 0..<2 {
            guard let memory = pool.take() else {
                made.forEach { pool.give($0) }
                close(fd)
                return nil
            }
            made.append(memory)
        }
        self.fd = fd
        self.fallback = fallback
        self.pool = pool
        buffers = made
    }

    deinit {
        queue.sync {}
        close(fd)
        buffers.forEach { pool.give($0) }
    }

    /// What is on disk for certain: everything the queue wrote before its first error.
    var onDisk: Int64 {
        queue.sync {}
        return written.withLock { $0.error == 0 ? from : $0.end }
    }

    /// Starts the buffer at the block boundary at or before `length`, reading back the file's bytes
    /// between them through `reader`. Nothing may be on its way to the disk.
    func start(at length: Int64, reading reader: Int32) throws(Failure) {
        queue.sync {}
        from = length - length % Int64(Self.block)
        held = 0
        written.withLock { $0 = (from, 0) }
        let tail = Int(length - from)
        let code = Descriptor.readAll(
            reader, into: UnsafeMutableRawBufferPointer(start: buffers[filling], count: tail), at: from)
        guard code == 0 else { throw Failure(code: code) }
        held = tail
    }

    /// Forgets what the buffers hold, once what is on its way is written.
    func discard() {
        queue.sync {}
        held = 0
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        guard var source = bytes.baseAddress else { return }
        let failed = written.withLock { $0.error }
        guard failed == 0 else { throw Failure(code: failed) }
        var left = bytes.count
        while left > 0 {
            let n = min(left, Self.capacity - held)
            (buffers[filling] + held).copyMemory(from: source, byteCount: n)
            held += n
            source += n
            left -= n
            if held == Self.capacity { handOff() }
        }
    }

    /// Sends the full buffer to the queue and goes on in the other one, once it is free.
    private func handOff() {
        let index = filling
        let offset = from
        spare.wait()
        queue.async { self.writeOut(index, at: offset) }
        from += Int64(Self.capacity)
        held = 0
        filling = 1 - filling
    }

    /// On the queue: writes a full buffer at `offset`, unless an earlier write failed.
    private func writeOut(_ index: Int, at offset: Int64) {
        defer { spare.signal() }
        guard written.withLock({ $0.error }) == 0 else { return }
        let outcome = write(UnsafeRawBufferPointer(start: buffers[index], count: Self.capacity), at: offset)
        written.withLock { $0 = outcome.succeeded ? (offset + Int64(Self.capacity), 0) : ($0.end, outcome.error) }
    }

    /// Writes `bytes` at `offset` directly, or through the page cache once a direct write was refused.
    private func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> Descriptor.Outcome {
        var done = 0
        if !refused.load(ordering: .relaxed) {
            let outcome = Descriptor.writeAll(fd, bytes, at: offset)
            guard outcome.error == EINVAL else { return outcome }
            refused.store(true, ordering: .relaxed)
            done = outcome.written
        }
        var rest = Descriptor.writeAll(
            fallback, UnsafeRawBufferPointer(rebasing: bytes[done...]), at: offset + Int64(done))
        rest.written += done
        return rest
    }

    /// Writes what the buffers hold: the filling buffer's whole blocks directly, the rest (the
    /// file's last, partial block) through the page cache.
    /// 0, or the first error. Nothing is appended after it.
    func finish() -> Int32 {
        queue.sync {}
        let failed = written.withLock { $0.error }
        guard failed == 0 else { return failed }
        let buffer = buffers[filling]
        let whole = held - held % Self.block
        if whole > 0 {
            let outcome = write(UnsafeRawBufferPointer(start: buffer, count: whole), at: from)
            guard outcome.succeeded else { return outcome.error }
            from += Int64(whole)
            held -= whole
            if held > 0 { buffer.copyMemory(from: buffer + whole, byteCount: held) }
        }
        guard held > 0 else { return 0 }
        let outcome = Descriptor.writeAll(fallback, UnsafeRawBufferPointer(start: buffer, count: held), at: from)
        guard outcome.succeeded else { return outcome.error }
        from += Int64(held)
        held = 0
        return 0
    }
}

/// Buffers for direct writers, kept for the next part file when one is let go: a download's later
/// files reuse the first ones' memory rather than fault in fresh pages (a 1 MiB buffer is 256 page
/// faults, each zeroing its page, the first time it is filled). A new buffer is mapped with its
/// pages in place at once (`MAP_POPULATE`, one call), page-aligned as direct I/O asks. A buffer
/// comes back holding an earlier file's bytes: a writer only ever writes what it filled itself.
final class DirectBuffers: Sendable {
    /// The process's: the buffers of four transfers at once are kept.
    static let shared = DirectBuffers(keepingAtMost: 8)

    let keptAtMost: Int
    /// The kept buffers' addresses (a pointer is not `Sendable`).
    private let kept = Mutex<[UInt]>([])

    #if os(Linux)
        private static let populate = Int32(MAP_POPULATE)
    #else
        private static let populate: Int32 = 0
    #endif

    init(keepingAtMost: Int) {
        keptAtMost = keepingAtMost
    }

    deinit {
        for address in kept.withLock({ $0 }) {
            munmap(UnsafeMutableRawPointer(bitPattern: address), DirectWriter.capacity)
        }
    }

    /// A buffer of `DirectWriter.capacity` bytes, aligned to a page: a kept one, else a new one;
    /// nil when memory cannot be had.
    func take() -> UnsafeMutableRawPointer? {
        if let address = kept.withLock({ $0.popLast() }), let buffer = UnsafeMutableRawPointer(bitPattern: address) {
            return buffer
        }
        let memory = mmap(
            nil, DirectWriter.capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | Self.populate, -1, 0)
        guard let memory, memory != MAP_FAILED else { return nil }
        return memory
    }

    /// Hands back a buffer from `take`: kept for the next part file, or unmapped.
    func give(_ buffer: UnsafeMutableRawPointer) {
        let keep = kept.withLock { buffers in
            guard buffers.count < keptAtMost else { return false }
            buffers.append(UInt(bitPattern: buffer))
            return true
        }
        if !keep { munmap(buffer, DirectWriter.capacity) }
    }

    /// How many buffers wait to be taken.
    var keptCount: Int { kept.withLock { $0.count } }
}

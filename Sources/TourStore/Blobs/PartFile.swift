import Crypto
import FileAccess
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A download being written in partial/: appended at a known offset, flushed to disk before it
/// is renamed into the blob store. One writer (one transfer) at a time: Sendable only so that its
/// transfer can hand the final flush to `DiskWait` while it waits for it.
final class PartFile: @unchecked Sendable {
    let url: URL
    private let fd: Int32
    /// Bytes in the file; what the next write appends after.
    private(set) var length: Int64
    /// Bytes up to which the kernel has been asked to start writing back.
    private var writebackStarted: Int64 = 0
    /// How much is appended before its writeback is started: the flush at the end then waits for
    /// the last stretch only, not for the whole file, and the page cache never holds much of it dirty.
    static let writebackStep: Int64 = 8 << 20

    init(url: URL) throws(StoreError) {
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
    }

    deinit { close(fd) }

    /// Forgets the bytes from `offset` on.
    func truncate(to offset: Int64) throws(StoreError) {
        guard ftruncate(fd, off_t(offset)) == 0 else { throw StoreError.system(errno, "truncate", url.path) }
        length = offset
        writebackStarted = min(writebackStarted, offset)
    }

    /// Appends `bytes` at the end.
    func append(_ bytes: UnsafeRawBufferPointer) throws(StoreError) {
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
    /// already has rather than trusting a saved hasher state).
    func hashPrefix(_ count: Int64, into hasher: inout SHA256) throws(StoreError) {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        while offset < count {
            let want = Int(min(Int64(buffer.count), count - offset))
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, want, off_t(offset)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw StoreError.system(n < 0 ? errno : EIO, "read", url.path) }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            offset += Int64(n)
        }
    }

    /// Flushes the bytes to the disk: only then may the file be renamed into the store.
    func sync() throws(StoreError) {
        guard fsync(fd) == 0 else { throw StoreError.system(errno, "flush", url.path) }
    }
}

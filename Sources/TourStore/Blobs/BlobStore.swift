import Crypto
import FileAccess
import Foundation
import TourModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files: `media/<sha256>` (complete, verified, never changed once there, but for a damaged
/// one fetched again and renamed over it by `verify --repair`) and
/// `partial/<name>.part` (downloads under way). The catalog says which blob is what; this type
/// only moves bytes and names.
public struct BlobStore: Sendable {
    public let media: URL
    public let partial: URL

    public init(location: StoreLocation) {
        media = location.media
        partial = location.partial
    }

    public func url(of sha256: String) -> URL { media.appendingPathComponent(sha256) }

    func partURL(for identity: FileIdentity) -> URL { partial.appendingPathComponent(identity.partName) }

    /// True when the blob is there with the size it should have (a cheap check; `verify`
    /// re-hashes).
    func isPresent(_ sha256: String, size: Int64) -> Bool {
        var info = stat()
        guard stat(url(of: sha256).path, &info) == 0 else { return false }
        return (info.st_mode & S_IFMT) == S_IFREG && Int64(info.st_size) == size
    }

    func prepare() throws(StoreError) {
        // Both live directly in the data folder, which opening the catalog created.
        for folder in [media, partial] where mkdir(folder.path, 0o755) != 0 && errno != EEXIST {
            throw StoreError.system(errno, "create the folder", folder.path)
        }
    }

    /// Renames a complete, flushed part file into `media/<sha256>` and flushes the folder, so the
    /// name survives a crash. An existing blob of that name already holds these bytes, or was found
    /// damaged and is replaced.
    func install(part: URL, as sha256: String) throws(StoreError) {
        let target = url(of: sha256)
        guard rename(part.path, target.path) == 0 else {
            throw StoreError.system(errno, "move into the store", part.path)
        }
        try Self.syncFolder(media)
    }

    func remove(_ sha256: String) {
        unlink(url(of: sha256).path)
    }

    func removePart(_ identity: FileIdentity) {
        unlink(partURL(for: identity).path)
    }

    /// Every blob file on disk and its size; stray names are left out.
    func blobFiles() -> [String: Int64] {
        var found: [String: Int64] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: media.path)) ?? [] where Hex.isSHA256(name) {
            var info = stat()
            if stat(media.appendingPathComponent(name).path, &info) == 0 { found[name] = Int64(info.st_size) }
        }
        return found
    }

    /// Every part file and its size.
    func partFiles() -> [String: Int64] {
        var found: [String: Int64] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: partial.path)) ?? []
        where name.hasSuffix(".part") {
            var info = stat()
            if stat(partial.appendingPathComponent(name).path, &info) == 0 { found[name] = Int64(info.st_size) }
        }
        return found
    }

    /// The SHA-256 of a file and its length, read in 1 MiB blocks.
    static func hash(_ url: URL) throws(StoreError) -> (sha256: String, size: Int64) {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.system(errno, "read", url.path) }
        defer { close(fd) }
        return try hash(descriptor: fd, path: url.path)
    }

    /// The SHA-256 of what `fd` reads to its end, and its length; `path` names it in errors.
    static func hash(descriptor fd: Int32, path: String) throws(StoreError) -> (sha256: String, size: Int64) {
        var hasher = SHA256()
        // 64 KiB, not zeroed: below the allocator's mmap threshold, so the heap's pages are used
        // again from file to file. A zeroed 1 MiB buffer per file (a fresh mapping, at least the
        // first time) cost a preview of the demo tour about 400 page faults and 1 ms.
        let size = 64 << 10
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            let n = read(fd, buffer, size)
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw StoreError.system(errno, "read", path) }
            if n == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(start: buffer, count: n))
            total += Int64(n)
        }
        return (Hex.string(hasher.finalize()), total)
    }

    static func syncFolder(_ folder: URL) throws(StoreError) {
        let code = Descriptor.syncFolder(folder.path)
        guard code == 0 else { throw StoreError.system(code, "flush", folder.path) }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// One command at a time changes the store: a download, an update, a removal, a repair or a
/// collection holds an exclusive `flock` on `store.lock` for its whole run. Without it a `gc`
/// could delete a blob a download has just finished, or two downloads write one part file.
/// Readers (a walk, `tours --installed`) take no lock: SQLite gives them a consistent catalog.
/// The kernel drops the lock however its holder ends, SIGKILL included.
public final class StoreLock: @unchecked Sendable {
    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    /// Takes the lock, or says which process holds it.
    public static func acquire(_ location: StoreLocation, purpose: String) throws(StoreError) -> StoreLock {
        do { try FileManager.default.createDirectory(at: location.dataFolder, withIntermediateDirectories: true) } catch {
            throw StoreError(.io, "cannot create the data folder \(location.dataFolder.path): \(error.localizedDescription)")
        }
        let path = location.lockFile.path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StoreError.system(errno, "open", path) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = Self.holder(fd)
            close(fd)
            let who = holder.map { " (pid \($0.pid): \($0.purpose))" } ?? ""
            throw StoreError(.busy, "another walkscape is changing the tour store\(who); try again when it has finished")
        }
        // Who holds it, for the next one to be told.
        let note = Data("\(getpid()) \(purpose)\n".utf8)
        _ = ftruncate(fd, 0)
        _ = note.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, 0) }
        return StoreLock(fd: fd)
    }

    deinit { release() }

    private var released = false

    public func release() {
        guard !released else { return }
        released = true
        flock(fd, LOCK_UN)
        close(fd)
    }

    private static func holder(_ fd: Int32) -> (pid: Int, purpose: String)? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, $0.count, 0) }
        guard n > 0 else { return nil }
        let text = String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = text.split(separator: " ", maxSplits: 1)
        guard let first = parts.first, let pid = Int(first) else { return nil }
        return (pid, parts.count > 1 ? String(parts[1]) : "")
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One walk of a tour at a time per state folder: an exclusive `flock(2)` on a lock file beside
/// the tour's progress, held for the whole walk. Two walks of one tour would each save their own
/// progress over the other's; the second is refused instead, told the first one's PID.
///
/// The kernel drops the lock when the holder exits however it exits (even SIGKILL), so a stale
/// lock file never blocks anyone; the file itself is never removed (removing a lock file races
/// with the next walk taking it).
public final class ProgressLock: @unchecked Sendable {
    public enum Acquisition: Sendable, Hashable {
        case held
        /// Another process holds it; its PID, if it managed to write it.
        case busy(pid: Int32?)
        /// The lock file cannot be created or opened (a read-only or missing state folder).
        case unavailable(reason: String)
    }

    public let url: URL
    private let lock = NSLock()
    private var fd: Int32 = -1

    public init(url: URL) {
        self.url = url
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    public var isHeld: Bool { lock.withLock { fd >= 0 } }

    /// Takes the lock without waiting. Calling it again once held does nothing and says `held`.
    public func acquire() -> Acquisition {
        lock.lock(); defer { lock.unlock() }
        if fd >= 0 { return .held }
        try? StateFolder.create(url.deletingLastPathComponent())
        var handle = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if handle < 0 {
            // A folder that turned read-only still has the lock file an earlier walk made, and a
            // lock on a read-only descriptor excludes just as well.
            let createError = errno
            handle = open(url.path, O_RDONLY | O_CLOEXEC)
            guard handle >= 0 else { return .unavailable(reason: String(cString: strerror(createError))) }
        }
        guard flock(handle, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            defer { close(handle) }
            if code == EWOULDBLOCK { return .busy(pid: Self.readPID(handle)) }
            return .unavailable(reason: String(cString: strerror(code)))
        }
        // Best effort: a full disk must not stop the walk, it only makes the refusal less precise.
        if ftruncate(handle, 0) == 0 {
            let line = Array("\(getpid())\n".utf8)
            _ = line.withUnsafeBytes { pwrite(handle, $0.baseAddress!, $0.count, 0) }
        }
        fd = handle
        return .held
    }

    /// Lets the next walk have it (exiting does the same).
    public func release() {
        lock.lock(); defer { lock.unlock() }
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    private static func readPID(_ handle: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = buffer.withUnsafeMutableBytes { pread(handle, $0.baseAddress!, $0.count, 0) }
        guard n > 0 else { return nil }
        let text = String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return Int32(text).flatMap { $0 > 0 ? $0 : nil }
    }
}

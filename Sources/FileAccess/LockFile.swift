import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive `flock(2)` on a file, held by one process at a time: the store while a command
/// changes it, a walk of a tour, the analytics sender, the credentials while they are renewed.
///
/// The holder writes its PID and what it is doing into the file, so the next one can be told who
/// holds it. The kernel drops the lock however its holder ends (SIGKILL included), so a stale file
/// never blocks anyone; the file itself is never removed (removing a lock file races with the next
/// process taking it).
public final class LockFile: @unchecked Sendable {
    /// Who holds a lock, as its holder wrote it.
    public struct Holder: Sendable, Hashable {
        public var pid: Int32
        public var purpose: String

        public init(pid: Int32, purpose: String = "") {
            self.pid = pid
            self.purpose = purpose
        }
    }

    public enum Acquisition: Sendable, Hashable {
        case held
        /// Another process (or another `LockFile` of this one) holds it; who, if it said.
        case busy(Holder?)
        /// The lock file cannot be created or opened (a read-only or missing folder).
        case unavailable(reason: String)
    }

    public let path: String
    private let permissions: mode_t
    private let lock = NSLock()
    private var fd: Int32 = -1

    public init(path: String, permissions: mode_t = 0o600) {
        self.path = path
        self.permissions = permissions
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    public var isHeld: Bool { lock.withLock { fd >= 0 } }

    /// Takes the lock without waiting. Calling it again once held does nothing and says `held`.
    public func tryAcquire(purpose: String = "") -> Acquisition {
        lock.lock(); defer { lock.unlock() }
        if fd >= 0 { return .held }
        var handle = openDescriptor(path, O_RDWR | O_CREAT | O_CLOEXEC, permissions)
        var writable = true
        if handle < 0 {
            // A folder that turned read-only still has the lock file an earlier run made, and a
            // lock on a read-only descriptor excludes just as well.
            let createError = errno
            handle = openDescriptor(path, O_RDONLY | O_CLOEXEC)
            guard handle >= 0 else { return .unavailable(reason: String(cString: strerror(createError))) }
            writable = false
        }
        guard flock(handle, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            defer { close(handle) }
            if code == EWOULDBLOCK { return .busy(Self.holder(handle)) }
            return .unavailable(reason: String(cString: strerror(code)))
        }
        // Best effort: a full disk must not stop the holder, it only makes a refusal less precise.
        if writable, ftruncate(handle, 0) == 0 {
            let note = purpose.isEmpty ? "\(getpid())\n" : "\(getpid()) \(purpose)\n"
            _ = Descriptor.writeAll(handle, note.utf8, at: 0)
        }
        fd = handle
        return .held
    }

    /// Takes the lock, waiting for its holder (checking every `interval`) until `deadline` or
    /// until the task is cancelled; then says why not.
    public func acquire(
        purpose: String = "", until deadline: ContinuousClock.Instant,
        interval: Duration = .milliseconds(20)
    ) async -> Acquisition {
        while true {
            let attempt = tryAcquire(purpose: purpose)
            guard case .busy = attempt else { return attempt }
            if ContinuousClock.now >= deadline || Task.isCancelled { return attempt }
            try? await Task.sleep(for: interval)
        }
    }

    /// The same, blocking the calling thread: for code that cannot wait asynchronously (opening a
    /// database inside a synchronous initialiser).
    public func acquireBlocking(
        purpose: String = "", until deadline: ContinuousClock.Instant,
        interval: Duration = .milliseconds(5)
    ) -> Acquisition {
        while true {
            let attempt = tryAcquire(purpose: purpose)
            guard case .busy = attempt else { return attempt }
            if ContinuousClock.now >= deadline { return attempt }
            Thread.sleep(forTimeInterval: interval / .seconds(1))
        }
    }

    /// Lets the next one have it (exiting does the same). Does nothing when not held.
    public func release() {
        lock.lock(); defer { lock.unlock() }
        guard fd >= 0 else { return }
        flock(fd, LOCK_UN)
        close(fd)
        fd = -1
    }

    private static func holder(_ handle: Int32) -> Holder? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { pread(handle, $0.baseAddress!, $0.count, 0) }
        guard n > 0 else { return nil }
        let text = String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = text.split(separator: " ", maxSplits: 1)
        guard let first = parts.first, let pid = Int32(first), pid > 0 else { return nil }
        return Holder(pid: pid, purpose: parts.count > 1 ? String(parts[1]) : "")
    }
}

import Foundation

/// One sender at a time across processes (a walk's background sender and a `sync`, say): an
/// `flock` on a file beside the outbox, held while a flush runs. Without it two processes could send
/// the same batch at once: harmless to the count (the ids de-duplicate) but twice the traffic.
/// The kernel drops the lock with its process, so a killed `sync` never leaves it behind.
public final class SendLock: @unchecked Sendable {
    public let url: URL
    private let lock = NSLock()
    private var fd: Int32 = -1

    public init(url: URL) {
        self.url = url
    }

    deinit { release() }

    /// Takes the lock if nobody holds it; false when another process (or this one) does, or the
    /// file cannot be made.
    public func tryAcquire() -> Bool {
        lock.withLock {
            guard fd < 0 else { return false }
            let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { return false }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                close(descriptor)
                return false
            }
            fd = descriptor
            return true
        }
    }

    /// Takes the lock, waiting for its holder (checking every quarter second) until `deadline`.
    public func acquire(until deadline: Date) async -> Bool {
        while true {
            if tryAcquire() { return true }
            if Date() >= deadline || Task.isCancelled { return false }
            try? await Task.sleep(for: .milliseconds(250))
        }
    }

    public func release() {
        lock.withLock {
            guard fd >= 0 else { return }
            flock(fd, LOCK_UN)
            close(fd)
            fd = -1
        }
    }
}

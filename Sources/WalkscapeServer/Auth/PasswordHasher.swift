import HummingbirdBcrypt
import NIOCore
import NIOPosix

/// bcrypt, off the request threads: a hash costs tens of milliseconds by design, which would stall
/// every other request if it ran on the cooperative pool. On a pool of its own, not the one media
/// files are read on: a flood of logins queued every download's next chunk behind its hashes (a
/// 100-byte range took 2.2 s under 64 logins at once, a 50 MB file moved at 236 kB/s).
struct PasswordHasher: Sendable {
    let cost: UInt8
    let pool: NIOThreadPool

    /// The process's hashing threads, one a core, started once and kept for its life.
    static let hashingPool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: System.coreCount)
        pool.start()
        return pool
    }()

    init(cost: Int, pool: NIOThreadPool = PasswordHasher.hashingPool) {
        self.cost = UInt8(clamping: min(max(cost, 4), 31))
        self.pool = pool
    }

    /// bcrypt reads at most 72 bytes and stops at a NUL: a longer password, or one holding a NUL,
    /// would be checked on a prefix only ("abcdefgh\0tail" logging in as "abcdefgh"). Such a
    /// password is refused at registration and never matches at login.
    static let maxBytes = 72

    /// Why `password` cannot be a password here, in the validation message's words, or nil.
    static func problem(_ password: String) -> String? {
        if password.utf8.contains(0) { return "password must not contain a NUL character" }
        if password.utf8.count > maxBytes { return "password must be shorter than or equal to \(maxBytes) bytes" }
        return nil
    }

    func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await pool.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    /// False for a password `problem` refuses, after the same work as any other (no timing tell).
    func verify(_ password: String, hash: String) async throws -> Bool {
        let acceptable = Self.problem(password) == nil
        let matches = try await pool.runIfActive { Bcrypt.verify(acceptable ? password : "", hash: hash) }
        return acceptable && matches
    }
}

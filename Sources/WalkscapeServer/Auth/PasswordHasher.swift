import HummingbirdBcrypt
import NIOPosix

/// bcrypt, off the request threads: a hash costs tens of milliseconds by design, which would stall
/// every other request if it ran on the cooperative pool.
struct PasswordHasher: Sendable {
    let cost: UInt8
    let pool: NIOThreadPool

    init(cost: Int, pool: NIOThreadPool = .singleton) {
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

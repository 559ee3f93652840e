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

    func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await pool.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    func verify(_ password: String, hash: String) async throws -> Bool {
        try await pool.runIfActive { Bcrypt.verify(password, hash: hash) }
    }
}

import Crypto
import FileAccess
import Foundation
import TourModel

#if canImport(Glibc)
    import Glibc
#endif

/// The secret everything the server signs derives from: access tokens, refresh tokens and media URLs
/// each get a key of their own, so a token of one kind never verifies as another.
///
/// Kept in `DATA/secret` (32 random bytes, hex, mode 0600), created on first run, so tokens and URLs
/// stay valid across restarts with the same data folder.
public struct ServerSecrets: Sendable {
    public static let fileName = "secret"
    let master: SymmetricKey

    public init(master: SymmetricKey) { self.master = master }

    public var accessTokenKey: SymmetricKey { derive("walkscape access token") }
    public var refreshTokenKey: SymmetricKey { derive("walkscape refresh token") }
    public var mediaURLKey: SymmetricKey { derive("walkscape media url") }

    private func derive(_ label: String) -> SymmetricKey {
        SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(label.utf8), using: master)))
    }

    /// Reads the data folder's secret, creating it when there is none. Two processes starting at
    /// once agree: the secret is written aside and linked into place, and the loser reads the winner's.
    /// A `secretFile` given instead is read and never made: it belongs to whoever installed the
    /// server (the Debian package makes it at install), and a missing one is an error.
    public static func load(dataDirectory: URL, secretFile: URL? = nil) throws(ServerError) -> ServerSecrets {
        try DataDirectory.prepare(dataDirectory)
        if let secretFile {
            let data: Data
            do { data = try InputFile.contents(of: secretFile.path) } catch {
                // Only a missing secret gets the recipe: one that is there but unreadable (the
                // service's user not in its group) or a folder must not be replaced, which would
                // end every session and link signed so far.
                guard case .missing = error.cause else { throw ServerError(.unavailable, error.message) }
                throw ServerError(
                    .unavailable,
                    "\(secretFile.path): no such file (make one readable by the server only: umask 077; od -An -vtx1 -N32 /dev/urandom | tr -d ' \\n' > \(secretFile.path))"
                )
            }
            return try parse(data, from: secretFile, made: false)
        }
        let target = dataDirectory.appendingPathComponent(fileName)
        if let existing = try read(target) { return existing }
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for i in bytes.indices { bytes[i] = UInt8.random(in: .min ... .max, using: &generator) }
        let hex = Hex.string(bytes) + "\n"
        do {
            _ = try AtomicFile.create(Data(hex.utf8), at: target.path, permissions: 0o600)
        } catch {
            throw ServerError(.unavailable, "\(target.path): cannot be created (\(error.reason))")
        }
        guard let secret = try read(target) else {
            throw ServerError(.unavailable, "\(target.path): cannot be read")
        }
        return secret
    }

    private static func read(_ url: URL) throws(ServerError) -> ServerSecrets? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        return try parse(data, from: url, made: true)
    }

    /// The secret's hex: an even number of hex digits, at least 32 (16 bytes), around which only
    /// white space may stand. `made`: the server wrote this file (the data folder's), so removing
    /// it makes a new one; a given file's owner is told what is wrong with it instead.
    private static func parse(_ data: Data, from url: URL, made: Bool) throws(ServerError) -> ServerSecrets {
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let bytes = Hex.bytes(text) ?? []
        guard bytes.count >= 16 else {
            let advice = made ? "; remove it to make a new one" : ""
            throw ServerError(
                .data, "\(url.path): is not a signing secret (expected at least 32 hex digits, an even number)\(advice)"
            )
        }
        return ServerSecrets(master: SymmetricKey(data: bytes))
    }
}

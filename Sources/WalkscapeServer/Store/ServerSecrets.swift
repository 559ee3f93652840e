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
            guard let secret = try read(secretFile) else {
                throw ServerError(
                    .unavailable,
                    "\(secretFile.path): cannot be read (make one with: od -An -vtx1 -N32 /dev/urandom | tr -d ' \\n' > \(secretFile.path))"
                )
            }
            return secret
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
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) ?? text.endIndex
            guard let byte = UInt8(text[index..<next], radix: 16) else { bytes = []; break }
            bytes.append(byte)
            index = next
        }
        guard bytes.count >= 16 else {
            throw ServerError(
                .data,
                "\(url.path): is not a secret this server wrote (expected hex bytes); remove it to make a new one")
        }
        return ServerSecrets(master: SymmetricKey(data: bytes))
    }
}

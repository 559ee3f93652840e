import Foundation

/// The installation's anonymous id (`anonymousId` on every event): a random UUID kept in the config
/// folder, made the first time an event is recorded. The service matches a walk's events to one
/// session by it and the tour id; it says nothing about who walks. Deleting the file makes a new one.
public enum AnonymousID {
    /// The id in `url`, made when there is none (or it is not a UUID). Two processes making it at
    /// once agree: the file is linked into place only if absent, and the loser reads the winner's.
    public static func load(orCreateAt url: URL) throws -> String {
        if let existing = read(url) { return existing }
        let folder = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let id = UUID().uuidString.lowercased()
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max))")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { unlink(temporary.path) }
        let line = Array((id + "\n").utf8)
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == line.count, synced == 0 else { throw POSIXError(.EIO) }
        if link(temporary.path, url.path) != 0 {
            guard errno == EEXIST else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            if let winner = read(url) { return winner }
            // There, but not an id (damaged): replace it.
            guard rename(temporary.path, url.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        return id
    }

    /// The id in `url` if there is a valid one.
    public static func read(_ url: URL) -> String? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return UUID(uuidString: text).map { _ in text.lowercased() }
    }
}

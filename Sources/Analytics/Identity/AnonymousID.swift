import FileAccess
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
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let id = UUID().uuidString.lowercased()
        let line = Data((id + "\n").utf8)
        if try !AtomicFile.create(line, at: url.path) {
            if let winner = read(url) { return winner }
            // There, but not an id (damaged): replace it.
            try AtomicFile.write(line, to: url.path)
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

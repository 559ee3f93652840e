import FileAccess
import Foundation
import TourModel

/// Loudness measured of files outside the store (tour folders, `play`'s files), kept in the cache
/// folder by the SHA-256 of each file's bytes: a narration is measured once, wherever the folder
/// is moved or copied, and measured again once its bytes change (docs/loudness.md).
///
/// A cache: a file that cannot be read or written is measured again, never an error. Two
/// walkscapes writing at once may lose each other's entries, which are then measured again.
package struct LoudnessCache: Sendable {
    package let file: URL

    package init(file: URL) { self.file = file }

    struct Contents: Codable {
        var method: String
        var entries: [String: Loudness]
    }

    package func load() -> [String: Loudness] {
        guard let data = try? InputFile.contents(of: file.path),
            let contents = try? JSONDecoder().decode(Contents.self, from: data),
            contents.method == Loudness.method  // another method: measured again
        else { return [:] }
        return contents.entries
    }

    /// Adds `entries` to what the file holds (re-read now, so another run's entries stay).
    package func store(_ entries: [String: Loudness]) {
        guard !entries.isEmpty else { return }
        var all = load()
        all.merge(entries) { _, new in new }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(Contents(method: Loudness.method, entries: all)) else { return }
        try? FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        try? AtomicFile.write(data, to: file.path, permissions: 0o600)
    }
}

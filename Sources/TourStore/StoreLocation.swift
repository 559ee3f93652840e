import Foundation

/// Where the content store lives: `catalog.sqlite`, `media/` (blobs named by their SHA-256) and
/// `partial/` (downloads under way) in the data folder. All three on one file system, so a
/// finished download is renamed into `media/`, never copied.
public struct StoreLocation: Sendable, Hashable {
    public var dataFolder: URL

    public init(dataFolder: URL) {
        self.dataFolder = dataFolder
    }

    public var catalog: URL { dataFolder.appendingPathComponent("catalog.sqlite") }
    public var media: URL { dataFolder.appendingPathComponent("media", isDirectory: true) }
    public var partial: URL { dataFolder.appendingPathComponent("partial", isDirectory: true) }
    /// Held (flock) by every command that changes the store, so a download and a `gc` never meet.
    public var lockFile: URL { dataFolder.appendingPathComponent("store.lock") }
    /// Room kept aside for the commands that free space on a full disk (`SpaceReserve`).
    public var reserve: URL { dataFolder.appendingPathComponent("reserve") }
}

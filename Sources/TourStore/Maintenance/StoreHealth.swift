/// How the store looks, for `doctor`.
public struct StoreHealth: Sendable, Hashable {
    /// SQLite's `quick_check` ("ok" when sound).
    public var quickCheck: String
    public var tours: Int
    public var blobs: Int
    public var bytes: Int64
    public var partialDownloads: Int
}

/// What `verify` found.
public struct VerifyReport: Sendable, Hashable {
    public var blobsChecked = 0
    public var bytesChecked: Int64 = 0
    public var problems: [BlobProblem] = []
    /// SQLite's `quick_check` of the catalog ("ok" when sound) and its foreign keys.
    public var catalogCheck = "ok"
    /// Blobs nothing uses, and their bytes (`gc` removes them).
    public var unusedBlobs = 0
    public var unusedBytes: Int64 = 0

    public init() {}

    public var isClean: Bool { problems.isEmpty && catalogCheck == "ok" }
}

/// What a collection freed.
public struct CollectionReport: Sendable, Hashable {
    public var blobsRemoved = 0
    public var bytesFreed: Int64 = 0
    /// Part files of interrupted downloads dropped (only `gc` drops them).
    public var partsRemoved = 0
    public var partBytesFreed: Int64 = 0

    public init() {}
}

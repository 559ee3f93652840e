/// How much one `POST /analytics/events` carries. The live service refuses bodies over about
/// 100 kB (413); 50 events and about 64 kB stay well under it, and a 413 all the same (a deployment
/// with a smaller limit) splits the batch and lowers the limit for the rest of the run.
public struct BatchLimits: Sendable, Hashable {
    public static let defaultMaxBytes = 64 * 1024
    /// `{"events":[` and `]}`.
    static let envelopeBytes = 13

    public var maxEvents: Int
    public var maxBytes: Int

    public init(maxEvents: Int = 50, maxBytes: Int = BatchLimits.defaultMaxBytes) {
        self.maxEvents = max(1, maxEvents)
        self.maxBytes = max(1, maxBytes)
    }
}

import Foundation

/// What the outbox holds, for `walkscape analytics status` and `walkscape sync`.
public struct OutboxSummary: Sendable, Hashable {
    /// Waiting for the service asked about.
    public var waiting: Int
    /// Waiting for other services (tours downloaded from another API URL), by service.
    public var waitingElsewhere: [String: Int]
    /// Refused by a service and set aside.
    public var quarantined: Int
    /// From tour folders: kept here, never sent.
    public var local: Int
    /// Delivered since the outbox was made (or last purged).
    public var sentTotal: Int
    public var lastDeliveredAt: Date?
    /// The last failure to deliver, in words, and when; cleared by the next delivery.
    public var lastProblem: String?
    public var lastProblemAt: Date?

    public init(
        waiting: Int = 0, waitingElsewhere: [String: Int] = [:], quarantined: Int = 0, local: Int = 0,
        sentTotal: Int = 0, lastDeliveredAt: Date? = nil, lastProblem: String? = nil, lastProblemAt: Date? = nil
    ) {
        self.waiting = waiting
        self.waitingElsewhere = waitingElsewhere
        self.quarantined = quarantined
        self.local = local
        self.sentTotal = sentTotal
        self.lastDeliveredAt = lastDeliveredAt
        self.lastProblem = lastProblem
        self.lastProblemAt = lastProblemAt
    }
}

import TourModel

/// Why and where a point triggered: what the preview's timeline shows for a point.
public struct PointTrigger: Sendable, Hashable, Codable {
    public var pointID: String
    public var order: Int
    /// Position of the point in the tour's order (0-based).
    public var index: Int
    public var type: TriggerType
    /// The fix that confirmed the entry; nil for caught-up and manual triggers.
    public var position: Coordinate?
    /// Metres from that fix to the point.
    public var distance: Double?

    public init(
        pointID: String, order: Int, index: Int, type: TriggerType, position: Coordinate? = nil,
        distance: Double? = nil
    ) {
        self.pointID = pointID
        self.order = order
        self.index = index
        self.type = type
        self.position = position
        self.distance = distance
    }
}

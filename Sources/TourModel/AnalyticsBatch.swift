/// The body of `POST /analytics/events`: `{events: [...]}`, at least one.
public struct AnalyticsBatch: Sendable, Hashable, Decodable, APIEncodable {
    public var events: [AnalyticsEvent]

    public init(events: [AnalyticsEvent]) { self.events = events }

    public func encode(to encoder: any Encoder, dialect: APIDialect) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.put(events, "events", dialect: dialect)
    }
}

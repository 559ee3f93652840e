import Analytics
import TourModel

/// The analytics settings of one run (`Settings.analytics()`).
struct AnalyticsSettings: Sendable, Hashable {
    /// What turned analytics off (`--no-analytics`, `DO_NOT_TRACK`, `analytics = off (config
    /// file)`); nil when on.
    var disabledBy: String?
    /// The shape events are sent in: `live` (the service's), or `guide` for a deployment that
    /// follows the published guide (`analytics-dialect = guide`). Stored events are the same.
    var dialect: APIDialect = .live
    /// About how large one batch's body may be.
    var maxBatchBytes = BatchLimits.defaultMaxBytes

    var enabled: Bool { disabledBy == nil }
    var limits: BatchLimits { BatchLimits(maxBytes: maxBatchBytes) }
}

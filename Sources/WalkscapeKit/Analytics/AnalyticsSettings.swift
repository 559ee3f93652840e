import Analytics
import TourModel

/// The analytics settings of one run (`Settings.analytics()`).
package struct AnalyticsSettings: Sendable, Hashable {
    /// What turned analytics off (`--no-analytics`, `DO_NOT_TRACK`, `analytics = off (config
    /// file)`); nil when on.
    package var disabledBy: String?
    /// The shape events are sent in: `live` (the service's), or `guide` for a deployment that
    /// follows the published guide (`analytics-dialect = guide`). Stored events are the same.
    package var dialect: APIDialect = .live
    /// About how large one batch's body may be.
    package var maxBatchBytes = BatchLimits.defaultMaxBytes

    package var enabled: Bool { disabledBy == nil }
    package var limits: BatchLimits { BatchLimits(maxBytes: maxBatchBytes) }
}

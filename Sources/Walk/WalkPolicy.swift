import Positioning

/// The knobs of the triggering rules (docs/walk.md, "Triggering rules").
public struct WalkPolicy: Sendable, Hashable, Codable {
    /// What happens to points that never triggered when a later point is entered.
    public enum MissedPoints: String, Sendable, Hashable, Codable, CaseIterable {
        /// Queue the missed points first, in order, so the story stays whole.
        case play
        /// Mark them missed and go on.
        case skip
        /// Wait for the next point only; later points do not trigger.
        case strict
    }

    /// Fixes with a larger horizontal error estimate (metres) do not count.
    public var maxHorizontalError: Double = 50
    /// Consecutive qualifying fixes inside a radius needed to enter it.
    public var confirmationFixes: Int = 2
    public var missed: MissedPoints = .play
    /// Seconds between fixes from which one fix deep inside a radius, reached at walking pace,
    /// confirms an entry by itself (a sparse receiver; rule 2).
    public var sparseInterval: Double = 2.5
    /// The fastest walk (m/s) that the sparse rule believes between two fixes.
    public var walkingSpeed: Double = 2.5
    /// How progress along the route is followed (rule 10).
    public var route: RouteProgress.Configuration = .default

    public init(maxHorizontalError: Double = 50, confirmationFixes: Int = 2, missed: MissedPoints = .play) {
        self.maxHorizontalError = maxHorizontalError
        self.confirmationFixes = confirmationFixes
        self.missed = missed
    }

    /// The fix filter that applies rule 1 with this policy's error bound; the other limits
    /// (walking speed, jump confirmation) are the filter's own defaults.
    public var filterConfiguration: FixFilter.Configuration {
        FixFilter.Configuration(maxHorizontalError: maxHorizontalError)
    }
}

import Foundation

/// Everything the walk core must remember to carry a walk across a crash or a reboot
/// (triggering rule 9). The core hands out a copy after every change (`saveProgress`); the live
/// runtime writes it to the state folder, and `WalkCore(tour:policy:resuming:)` picks it up.
///
/// The fix filter and the entry confirmation streaks are deliberately not saved: after a restart
/// the old fixes are stale, and re-confirming an entry costs two seconds.
public struct WalkProgress: Sendable, Hashable, Codable {
    public enum PointStatus: String, Sendable, Hashable, Codable {
        /// Not triggered yet.
        case pending
        /// Triggered, waiting for the narration before it to end.
        case queued
        case playing
        /// Heard to the end, skipped by the walker, or announced (no or broken audio).
        case played
        /// Passed over under `MissedPoints.skip`.
        case missed
    }

    public struct PointRecord: Sendable, Hashable, Codable {
        public var id: String
        public var status: PointStatus
        public var triggeredAt: Date?
        public var triggerType: TriggerType?

        public init(id: String, status: PointStatus = .pending, triggeredAt: Date? = nil, triggerType: TriggerType? = nil) {
            self.id = id
            self.status = status
            self.triggeredAt = triggeredAt
            self.triggerType = triggerType
        }

        /// Triggered by GPS, catch-up or hand, whether or not its narration has ended.
        public var wasTriggered: Bool { status == .queued || status == .playing || status == .played }
    }

    public enum Outcome: String, Sendable, Hashable, Codable {
        /// The last point was heard: the next walk of the tour starts again.
        case completed
        /// The walker quit (a key, Ctrl-C, a signal): the walk resumes where it was.
        case abandoned
    }

    /// The narration the walker hears now; `isReplay` for previous/replay, which change no progress.
    public struct Playing: Sendable, Hashable, Codable {
        public var pointID: String
        public var isReplay: Bool

        public init(pointID: String, isReplay: Bool) {
            self.pointID = pointID
            self.isReplay = isReplay
        }
    }

    public var tourID: String
    public var language: String
    public var startedAt: Date?
    /// One per point, in the tour's order.
    public var points: [PointRecord]
    /// Index of the first point neither triggered nor missed: where GPS triggering looks next.
    public var nextIndex: Int
    /// Point ids triggered and waiting, in order.
    public var queue: [String]
    public var playing: Playing?
    /// The point `replay` and `previous` refer to when nothing plays.
    public var lastHeard: String?
    public var isPaused: Bool
    public var outcome: Outcome?
    public var endedAt: Date?

    public init(tourID: String, language: String, pointIDs: [String]) {
        self.tourID = tourID
        self.language = language
        self.startedAt = nil
        self.points = pointIDs.map { PointRecord(id: $0) }
        self.nextIndex = 0
        self.queue = []
        self.playing = nil
        self.lastHeard = nil
        self.isPaused = false
        self.outcome = nil
        self.endedAt = nil
    }

    public var pointsVisited: Int { points.count { $0.wasTriggered } }

    /// 0-based index of the furthest point triggered, -1 when none was.
    public var lastPointIndex: Int { points.lastIndex { $0.wasTriggered } ?? -1 }
}

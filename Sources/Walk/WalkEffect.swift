import Positioning
import TourModel

/// What the walk core asks its runtime to do, or tells it happened. Runtimes act on the ones they
/// care about (the live walk plays audio and saves; the preview records a timeline).
public enum WalkEffect: Sendable, Hashable {
    /// A point's entry was confirmed (or caught up, or forced by hand).
    case triggered(PointTrigger)
    /// The point waits behind the narration playing now (rule 3); `position` 1 is next.
    case queued(pointID: String, position: Int)
    /// Start this point's narration from the beginning.
    case play(PlayablePoint)
    /// Show the point's title, text and (if any) subtitles: it has no audio, or its audio failed.
    /// The walk goes straight on (rule 6).
    case announce(PlayablePoint, reason: String)
    /// Stop the narration now playing.
    case stop
    case pause
    case resume
    /// The point was passed over under `MissedPoints.skip`.
    case missed(pointID: String)
    /// The fix filter refused a fix (rule 1); the live UI can say "GPS poor", previews count them.
    case fixRejected(Fix, FixFilter.Reason)
    /// The walker's progress along the route changed in a way a curator wants to see (left the
    /// route, came back, re-localised by a shortcut).
    case route(RouteProgress.Event)
    /// An analytics event for the outbox.
    case track(WalkEvent)
    /// Persist this progress (rule 9).
    case saveProgress(WalkProgress)
    /// The tour is complete; show the tour's completion message (rule 7).
    case completed(message: String?)
    /// The walker quit before the end.
    case abandoned
}

extension WalkEffect {
    /// Effects of a fix that mean the progress changed (and must be saved).
    var changesProgress: Bool {
        switch self {
        case .triggered, .missed, .play, .announce, .completed, .abandoned, .queued: true
        default: false
        }
    }
}

import Positioning

/// Something that happened to the walker, timestamped by the runtime that feeds the core.
///
/// The core never reads a clock: the live runtime stamps inputs with wall-clock time, the preview
/// with the trace's own times, so both produce the same decisions for the same walk.
public enum WalkInput: Sendable, Hashable {
    /// The walk begins, or resumes from saved progress (a point that was playing plays again).
    /// Any other input on a walk that has not started starts it first.
    case start
    case fix(Fix)
    /// The point's narration played to its end.
    case audioFinished(pointID: String)
    /// The point's narration could not be played (unreadable file, decoder error, no device).
    case audioFailed(pointID: String, reason: String)
    case command(WalkAction)
}

extension WalkInput {
    public var isFix: Bool { if case .fix = self { true } else { false } }
}

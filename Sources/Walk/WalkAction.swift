/// What a walker can ask for by hand (triggering rule 8).
public enum WalkAction: String, Sendable, Hashable, Codable, CaseIterable {
    /// Stop the current narration and count it as heard; the queue goes on. With nothing playing
    /// or queued, trigger the next point by hand (for a walker whose GPS will not cooperate).
    case skip
    /// Play the point before the current one; the interrupted point plays again afterwards.
    case previous
    /// Play the current (or, when idle, the last heard) point again from the start.
    case replay
    case pause
    case resume
    /// The walker gives up: `tour_abandoned` unless the tour is already complete.
    case quit
}

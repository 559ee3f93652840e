import Positioning

/// One report from a `GPSDSource`.
public enum GPSDEvent: Sendable, Hashable {
    case state(GPSDState)
    case fix(Fix)
}

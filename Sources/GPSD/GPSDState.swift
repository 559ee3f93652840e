import Positioning

/// What the walker's receiver is doing, as far as gpsd tells us; the UI says it in words.
public enum GPSDState: String, Sendable, Hashable, Codable {
    /// gpsd is not reachable (not running, refused, closed, or connected but never answering);
    /// the source keeps retrying.
    case noGPSD
    /// Connected to gpsd, but it reports no 2D/3D fix (indoors, cold start, no receiver).
    case waitingForFix
    /// Connected, and fixes are arriving.
    case connected

    public var message: String {
        switch self {
        case .noGPSD: "no gpsd: retrying"
        case .waitingForFix: "gpsd connected, waiting for a fix"
        case .connected: "gpsd connected, fix"
        }
    }
}

import TourModel

/// One file of an installed language version, and the blob that holds its bytes.
public struct InstalledFile: Sendable, Hashable {
    public var role: FileRole
    public var pointID: String?
    public var language: String?
    public var identity: FileIdentity
    public var sha256: String
    /// Audio that does not play: why ("looks like MP4/AAC: holds no audio stream ..."). The walk announces such
    /// a point instead of playing it.
    public var audioProblem: String?
    /// A narration's loudness, once measured (at download, or at the first walk of a tour
    /// installed before walkscape measured it).
    public var loudness: Loudness?

    public init(
        role: FileRole, pointID: String?, language: String?, identity: FileIdentity, sha256: String,
        audioProblem: String? = nil, loudness: Loudness? = nil
    ) {
        self.role = role
        self.pointID = pointID
        self.language = language
        self.identity = identity
        self.sha256 = sha256
        self.audioProblem = audioProblem
        self.loudness = loudness
    }
}

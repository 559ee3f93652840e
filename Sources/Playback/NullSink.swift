/// Throws PCM away as fast as it comes: for `--no-audio` style runs and measurements.
/// It keeps count, so tests can check how much was "played".
public final class NullSink: PCMSink, @unchecked Sendable {
    public private(set) var format: PCMFormat?
    /// Frames written since `configure`.
    public private(set) var framesWritten = 0
    /// Frames written over the sink's whole life, across formats.
    public private(set) var totalFrames = 0

    public init() {}

    public func configure(_ format: PCMFormat) throws(PlaybackError) {
        self.format = format
        framesWritten = 0
    }

    public func write(_ pcm: UnsafeRawBufferPointer) throws(PlaybackError) {
        let frames = pcm.count / (format?.bytesPerFrame ?? 2)
        framesWritten += frames
        totalFrames += frames
    }

    public func drain() throws(PlaybackError) {}
    public var playedFrames: Int { framesWritten }
    public var keepsTime: Bool { false }
    public func close() throws(PlaybackError) {}
}

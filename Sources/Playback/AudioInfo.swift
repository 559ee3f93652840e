/// What a probe learns about an audio file without playing it.
public struct AudioInfo: Sendable, Hashable {
    /// The PCM format decoding produces.
    public var format: PCMFormat
    /// Exact gapless length in PCM frames: what decoding will produce, sample for sample.
    public var frames: Int
    /// `frames` in seconds at the file's own rate.
    public var duration: Double

    public init(format: PCMFormat, frames: Int) {
        self.format = format
        self.frames = frames
        self.duration = format.sampleRate > 0 ? Double(frames) / Double(format.sampleRate) : 0
    }
}

/// The contract between a decoder and a sink: signed 16-bit little-endian interleaved PCM.
public struct PCMFormat: Sendable, Hashable, CustomStringConvertible {
    public var sampleRate: Int
    public var channels: Int

    public init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }

    public var bytesPerFrame: Int { 2 * channels }
    public var description: String {
        "\(sampleRate) Hz, \(channels == 1 ? "mono" : channels == 2 ? "stereo" : "\(channels) ch")"
    }
}

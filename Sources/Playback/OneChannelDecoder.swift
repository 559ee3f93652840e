import Foundation

/// A stereo narration recorded on one channel, the other silent (`Loudness.onlyChannel`), handed
/// out as the mono it is: the queue then plays it on both channels, 3 dB down each, as a mono
/// recording. Played as stereo it sounded in one ear alone, 3 dB under its mono recording, and a
/// walker with one earbud in the other ear heard nothing.
final class OneChannelDecoder: AudioDecoder {
    private let inner: any AudioDecoder
    private let channel: Int
    let format: PCMFormat

    init(_ inner: any AudioDecoder, channel: Int) {
        self.inner = inner
        self.channel = min(max(channel, 0), inner.format.channels - 1)
        format = PCMFormat(sampleRate: inner.format.sampleRate, channels: 1)
    }

    var name: String { inner.name }
    var framesDecoded: Int { inner.framesDecoded }
    var damage: String? { inner.damage }

    /// The channel's samples, moved to the front of the inner decoder's buffer (which the caller
    /// may change in place): each lands at or before where it was read.
    func nextChunk() throws(PlaybackError) -> UnsafeMutableRawBufferPointer? {
        guard let chunk = try inner.nextChunk() else { return nil }
        let samples = chunk.bindMemory(to: Int16.self)
        let channels = inner.format.channels
        let frames = samples.count / channels
        for frame in 0..<frames { samples[frame] = samples[frame * channels + channel] }
        return UnsafeMutableRawBufferPointer(rebasing: chunk[0..<(frames * 2)])
    }

    func exactFrameCount() throws(PlaybackError) -> Int { try inner.exactFrameCount() }
    func seek(toFrame frame: Int) throws(PlaybackError) { try inner.seek(toFrame: frame) }
    func applyLevel(_ factor: Float) -> Bool { inner.applyLevel(factor) }
}

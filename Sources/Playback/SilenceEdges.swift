import Foundation

/// Where a narration's sound begins and ends (docs/loudness.md): its level in blocks of 100 ms,
/// judged once its loudness is known, so that a quiet recording's speech is sound while digital
/// silence or a noise floor is not. A walker who reaches a point hears nothing for as long as its
/// narration leads in, and a point reached meanwhile waits behind its tail.
struct SilenceEdges {
    /// The resolution of the edges.
    static let blockSeconds = 0.1
    /// A block is sound when its RMS level reaches −50 dBFS, or 20 dB under the narration's
    /// integrated loudness when that is lower (a narration recorded quietly).
    static let soundFloorDBFS = -50.0
    static let underIntegrated = 20.0

    let channels: Int
    let sampleRate: Int
    let blockFrames: Int
    /// Each whole block's mean square (full scale 1), then the last, partial one's.
    private var blocks: [Float] = []
    /// The current block's sum of squares: of 16-bit samples, and of float ones (full scale 1).
    private var sum: Int64 = 0
    private var floatSum = 0.0
    private var samplesInBlock = 0
    private var samples = 0
    var frames: Int { samples / channels }

    init(channels: Int, sampleRate: Int) {
        self.channels = max(1, channels)
        self.sampleRate = max(1, sampleRate)
        blockFrames = max(1, Int((Double(sampleRate) * Self.blockSeconds).rounded()))
    }

    private var meanSquare: Float {
        Float((Double(sum) / (32768.0 * 32768.0) + floatSum) / Double(max(1, samplesInBlock)))
    }

    /// Interleaved samples, whole frames.
    mutating func add(_ chunk: UnsafeBufferPointer<Int16>) {
        add(count: chunk.count) { edges, start, end in
            var square: Int64 = 0
            for value in chunk[start..<end] {
                let wide = Int64(value)
                square &+= wide &* wide
            }
            edges.sum &+= square
        }
    }

    /// Interleaved float samples (full scale 1), whole frames.
    mutating func add(_ chunk: UnsafeBufferPointer<Float>) {
        add(count: chunk.count) { edges, start, end in
            var square: Float = 0
            for value in chunk[start..<end] { square += value * value }
            edges.floatSum += Double(square)
        }
    }

    /// Goes through `count` samples block by block, `accumulate` summing the squares of a range.
    private mutating func add(count: Int, accumulate: (inout Self, Int, Int) -> Void) {
        let blockSamples = blockFrames * channels
        var index = 0
        while index < count {
            let take = min(blockSamples - samplesInBlock, count - index)
            accumulate(&self, index, index + take)
            samplesInBlock += take
            index += take
            if samplesInBlock == blockSamples {
                blocks.append(meanSquare)
                sum = 0
                floatSum = 0
                samplesInBlock = 0
            }
        }
        samples += count
    }

    /// The silence before the first block of sound and after the last, in seconds to a tenth; nil when the
    /// narration has no integrated loudness (silent, or too short to measure).
    func edges(integrated: Double?) -> (leading: Double, trailing: Double)? {
        guard let integrated else { return nil }
        var levels = blocks
        if samplesInBlock > 0 { levels.append(meanSquare) }
        let floor = min(Self.soundFloorDBFS, integrated - Self.underIntegrated)
        let threshold = Float(pow(10, floor / 10))
        guard let first = levels.firstIndex(where: { $0 >= threshold }),
            let last = levels.lastIndex(where: { $0 >= threshold })
        else { return nil }
        let rate = Double(sampleRate)
        let soundEnds = min(frames, (last + 1) * blockFrames)
        // To a tenth, as the blocks tell them (a tail measured 4.97 s to the end of its last
        // block of sound was 5.0 in the preview and not named by lint).
        func tenths(_ seconds: Double) -> Double { (seconds * 10).rounded() / 10 }
        return (tenths(Double(first * blockFrames) / rate), tenths(Double(frames - soundEnds) / rate))
    }
}

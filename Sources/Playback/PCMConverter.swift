import Foundation

/// Converts s16 interleaved PCM between formats: channels by averaging or duplicating, rate by
/// linear interpolation (what ALSA's plug layer does by default). Used where one output must hold
/// items of different formats, like a WAV file.
struct PCMConverter: Sendable {
    let from: PCMFormat
    let to: PCMFormat
    /// Position of the next output frame, in input frames, relative to `previous`.
    private var phase = 0.0
    /// The last input frame of the previous chunk (in the output channel layout), so interpolation
    /// is continuous across chunks.
    private var previous: [Float]

    init(from: PCMFormat, to: PCMFormat) {
        self.from = from
        self.to = to
        self.previous = Array(repeating: 0, count: to.channels)
        self.phase = 1  // no previous frame yet: start exactly at the first input frame
    }

    mutating func convert(_ pcm: UnsafeRawBufferPointer) -> Data {
        let input = pcm.bindMemory(to: Int16.self)
        let frames = input.count / from.channels
        guard frames > 0 else { return Data() }
        // Remap channels first: frame i of `mapped` holds `to.channels` floats.
        var mapped = [Float](repeating: 0, count: (frames + 1) * to.channels)
        for c in 0..<to.channels { mapped[c] = previous[c] }
        for i in 0..<frames {
            for c in 0..<to.channels {
                let value: Float
                if from.channels == to.channels {
                    value = Float(Int16(littleEndian: input[i * from.channels + c]))
                } else if to.channels == 1 {
                    var sum: Float = 0
                    for k in 0..<from.channels { sum += Float(Int16(littleEndian: input[i * from.channels + k])) }
                    value = sum / Float(from.channels)
                } else {
                    value = Float(Int16(littleEndian: input[i * from.channels + min(c, from.channels - 1)]))
                }
                mapped[(i + 1) * to.channels + c] = value
            }
        }
        let step = Double(from.sampleRate) / Double(to.sampleRate)
        var output = [Int16]()
        output.reserveCapacity(Int(Double(frames) / step + 2) * to.channels)
        // Frames 0...frames of `mapped` exist; interpolate while the right neighbour does.
        while phase < Double(frames) {
            let index = Int(phase)
            let fraction = Float(phase - Double(index))
            for c in 0..<to.channels {
                let a = mapped[index * to.channels + c], b = mapped[(index + 1) * to.channels + c]
                let value = a + (b - a) * fraction
                output.append(Int16(max(-32768, min(32767, value.rounded()))).littleEndian)
            }
            phase += step
        }
        phase -= Double(frames)
        for c in 0..<to.channels { previous[c] = mapped[frames * to.channels + c] }
        return output.withUnsafeBytes { Data($0) }
    }
}

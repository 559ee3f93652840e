import CEBUR128
import Foundation
import TourModel

/// Measures a narration's loudness from the PCM its decoder gives, so whatever format the file is
/// in, the figure is of what is heard: EBU R128 integrated loudness by libebur128, the true peak by
/// `TruePeak` (libebur128's own true-peak mode oversamples every sample and costs four times the
/// rest of the measurement), clipped places (three or more samples in a row at full scale), and the silence at either end
/// (`SilenceEdges`).
public enum LoudnessMeter {
    /// Reads the whole file once (twice when it clips, below). A damaged or truncated file is
    /// measured on what plays.
    public static func measure(_ url: URL) throws(PlaybackError) -> Loudness {
        try measure { () throws(PlaybackError) in try AudioDecoders.open(url) }
    }

    public static func measure(data: Data, name: String = "<memory>") throws(PlaybackError) -> Loudness {
        try measure { () throws(PlaybackError) in try AudioDecoders.open(data: data, name: name) }
    }

    /// How far a clipping file is lowered for its second reading (dB).
    static let headroomDB = 12.0

    /// A file that clips at full scale may hold more than 16 bits show: an MP3 mastered past it
    /// decodes whole in libmpg123's synthesis, and the queue has it lower its output there
    /// (`AudioDecoder.applyLevel`), so what plays levelled is the unclipped signal. Such a file is
    /// read again 12 dB down and its levels taken from that (its clipped places from the first
    /// reading: what plays as recorded). Measured clipped, speech raised 14 dB into an MP3 read
    /// 2.4 LU and 8 dB of peak too low, and played 2.3 LU over the target. A decoder that hands
    /// out float (FFmpeg's) is read once, whole: a second reading doubled the meter's time for an
    /// AAC whose codec carries a 0 dBFS master's peaks past full scale.
    static func measure(_ open: () throws(PlaybackError) -> any AudioDecoder) throws(PlaybackError) -> Loudness {
        let (first, whole) = try reading(try open())
        guard first.isClipped, !whole else { return first }
        let lowered = try open()
        guard lowered.applyLevel(Float(LoudnessTarget.factor(-headroomDB))) else { return first }
        let (second, _) = try reading(lowered)
        return Loudness(
            integrated: second.integrated.map { $0 + headroomDB }, truePeak: second.truePeak.map { $0 + headroomDB },
            clippedRuns: first.clippedRuns, seconds: first.seconds, damage: first.damage,
            leadingSilence: first.leadingSilence, trailingSilence: first.trailingSilence,
            onlyChannel: first.onlyChannel)
    }

    public static func measure(_ decoder: any AudioDecoder) throws(PlaybackError) -> Loudness {
        try reading(decoder).loudness
    }

    /// One reading of the whole stream: in float where the decoder hands it out (`whole`: nothing
    /// was cut at full scale, its clipped places are where 16 bits would be at it), else in 16 bits.
    static func reading(_ decoder: any AudioDecoder) throws(PlaybackError) -> (loudness: Loudness, whole: Bool) {
        let float = decoder.handOutFloat()
        let format = decoder.format
        // Histogram mode keeps memory constant whatever the length (0.1 LU resolution, well
        // inside what levelling needs).
        let mode = Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_HISTOGRAM.rawValue)
        guard let state = ebur128_init(UInt32(format.channels), UInt(format.sampleRate), mode) else {
            throw .decodeFailed(path: decoder.name, reason: "the loudness meter refused \(format)")
        }
        defer {
            var owned: UnsafeMutablePointer<ebur128_state>? = state
            ebur128_destroy(&owned)
        }
        var meters = SampleMeters(format)
        while let chunk = try decoder.nextChunk() {
            let frames = chunk.count / (format.channels * (float ? 4 : 2))
            guard frames > 0 else { continue }
            let added: Int32
            if float {
                let samples = UnsafeBufferPointer(chunk.bindMemory(to: Float.self))
                added = ebur128_add_frames_float(state, samples.baseAddress!, frames)
                meters.add(samples)
            } else {
                let samples = UnsafeBufferPointer(chunk.bindMemory(to: Int16.self))
                added = ebur128_add_frames_short(state, samples.baseAddress!, frames)
                meters.add(samples)
            }
            guard added == Int32(EBUR128_SUCCESS.rawValue) else {
                throw .decodeFailed(path: decoder.name, reason: "the loudness meter failed")
            }
        }
        var integrated = -Double.infinity
        ebur128_loudness_global(state, &integrated)
        let truePeak = meters.peak.finish()
        let edges = meters.silence.edges(integrated: integrated.isFinite ? integrated : nil)
        let loudness = Loudness(
            integrated: integrated.isFinite ? integrated : nil,
            truePeak: truePeak > 0 ? 20 * log10(truePeak) : nil,
            clippedRuns: meters.clip.runs,
            seconds: Double(decoder.framesDecoded) / Double(format.sampleRate),
            damage: decoder.damage, leadingSilence: edges?.leading, trailingSilence: edges?.trailing,
            onlyChannel: integrated.isFinite ? meters.energy.onlyChannel : nil)
        return (loudness, float)
    }

    /// libebur128's version, for `doctor` and `--version`.
    public static var libraryVersion: String {
        var major: Int32 = 0
        var minor: Int32 = 0
        var patch: Int32 = 0
        ebur128_get_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }
}

/// What the meter finds besides libebur128's loudness, sample by sample.
struct SampleMeters {
    var clip: ClipCounter
    var peak: TruePeak
    var silence: SilenceEdges
    var energy: ChannelEnergy

    init(_ format: PCMFormat) {
        clip = ClipCounter(channels: format.channels)
        peak = TruePeak(channels: format.channels)
        silence = SilenceEdges(channels: format.channels, sampleRate: format.sampleRate)
        energy = ChannelEnergy(channels: format.channels)
    }

    mutating func add(_ samples: UnsafeBufferPointer<Int16>) {
        clip.count(samples)
        peak.add(samples)
        silence.add(samples)
        energy.add(samples)
    }

    mutating func add(_ samples: UnsafeBufferPointer<Float>) {
        clip.count(samples)
        peak.add(samples)
        silence.add(samples)
        energy.add(samples)
    }
}

/// Each channel's energy over the whole narration: a stereo file recorded on one channel, the other
/// silent, is told (`Loudness.onlyChannel`).
struct ChannelEnergy {
    let channels: Int
    /// Sums of squares, full scale 1.
    private var sums: [Double]

    /// The other channel is silent when its energy is this far under the sounding one's (40 dB).
    static let silentBelow = 1e-4

    init(channels: Int) {
        self.channels = max(1, channels)
        sums = Array(repeating: 0.0, count: self.channels)
    }

    mutating func add(_ samples: UnsafeBufferPointer<Int16>) {
        guard channels == 2 else { return }
        var left: Int64 = 0
        var right: Int64 = 0
        var index = 0
        while index + 1 < samples.count {
            let l = Int64(samples[index])
            let r = Int64(samples[index + 1])
            left &+= l &* l
            right &+= r &* r
            index += 2
        }
        sums[0] += Double(left) / (32768 * 32768)
        sums[1] += Double(right) / (32768 * 32768)
    }

    /// Float samples, full scale 1.
    mutating func add(_ samples: UnsafeBufferPointer<Float>) {
        guard channels == 2 else { return }
        var left = 0.0
        var right = 0.0
        var index = 0
        while index + 1 < samples.count {
            left += Double(samples[index] * samples[index])
            right += Double(samples[index + 1] * samples[index + 1])
            index += 2
        }
        sums[0] += left
        sums[1] += right
    }

    /// The one channel of a stereo stream that sounds, when the other is silent.
    var onlyChannel: Int? {
        guard channels == 2 else { return nil }
        let (left, right) = (sums[0], sums[1])
        if left > 0, right <= left * Self.silentBelow { return 0 }
        if right > 0, left <= right * Self.silentBelow { return 1 }
        return nil
    }
}

/// Counts runs of three or more consecutive samples of one channel at full scale (either sign).
struct ClipCounter {
    let channels: Int
    private var runLength: [Int]
    private(set) var runs = 0
    static let minimumRun = 3

    init(channels: Int) {
        self.channels = channels
        runLength = Array(repeating: 0, count: channels)
    }

    mutating func count(_ samples: UnsafeBufferPointer<Int16>) {
        count(samples.count) { samples[$0] >= Int16.max || samples[$0] <= Int16.min + 1 }
    }

    /// Float samples at full scale as 16 bits would hold them: what rounds to ±32767 or past.
    mutating func count(_ samples: UnsafeBufferPointer<Float>) {
        let rail: Float = 32766.5 / 32768
        count(samples.count) { samples[$0] >= rail || samples[$0] <= -rail }
    }

    private mutating func count(_ total: Int, atFullScale: (Int) -> Bool) {
        var channel = 0
        for index in 0..<total {
            if atFullScale(index) {
                runLength[channel] += 1
                if runLength[channel] == Self.minimumRun { runs += 1 }
            } else {
                runLength[channel] = 0
            }
            channel += 1
            if channel == channels { channel = 0 }
        }
    }
}

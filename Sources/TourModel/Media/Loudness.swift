import Foundation

/// A narration's loudness as EBU R128 measures it (docs/loudness.md): measured once per file
/// (Playback's `LoudnessMeter`), kept with the file's hash, and turned into a gain at playback so
/// every point of a tour sounds equally loud.
public struct Loudness: Sendable, Hashable, Codable {
    /// Integrated loudness in LUFS; nil when the file is silent (no block above the absolute gate
    /// of −70 LUFS).
    public var integrated: Double?
    /// True peak in dBTP (4x oversampled); nil when every sample is zero.
    public var truePeak: Double?
    /// Places where the recording is clipped: runs of three or more samples in a row at full scale.
    public var clippedRuns: Int
    /// The decoded length in seconds.
    public var seconds: Double
    /// What the decoder found wrong on the way (a file that ends early, damaged packets): the
    /// figures are of what plays.
    public var damage: String?
    /// Seconds of silence before the narration's first sound and after its last (Playback's
    /// `SilenceEdges`, 0.1 s steps); nil when it has no integrated loudness, or when measured by a
    /// method before they were (a catalog row or a cache entry of such a method).
    public var leadingSilence: Double?
    public var trailingSilence: Double?
    /// A stereo narration recorded on one channel, the other silent (40 dB or more under it): the
    /// channel that sounds (0 left, 1 right). It plays on both, as the mono recording it is.
    public var onlyChannel: Int?

    /// How these figures are measured. Bumped when the measurement changes: figures kept under
    /// another method (in the loudness cache or the store's catalog) are measured again.
    public static let method = "ebur128-i-tp-damage-unclipped-edges-channel/5"

    public init(
        integrated: Double?, truePeak: Double?, clippedRuns: Int = 0, seconds: Double, damage: String? = nil,
        leadingSilence: Double? = nil, trailingSilence: Double? = nil, onlyChannel: Int? = nil
    ) {
        self.integrated = integrated.flatMap { $0.isFinite ? $0 : nil }
        self.truePeak = truePeak.flatMap { $0.isFinite ? $0 : nil }
        self.clippedRuns = max(0, clippedRuns)
        self.seconds = seconds.isFinite ? max(0, seconds) : 0
        self.damage = damage
        self.leadingSilence = leadingSilence.flatMap { $0.isFinite ? max(0, $0) : nil }
        self.trailingSilence = trailingSilence.flatMap { $0.isFinite ? max(0, $0) : nil }
        self.onlyChannel = onlyChannel.flatMap { (0...1).contains($0) ? $0 : nil }
    }

    /// EBU R128 gates 400 ms blocks: a shorter file has no integrated loudness however loud it is.
    public static let shortestMeasurable = 0.4

    /// Nothing above the gate, in a file long enough to have been measured, or nothing at all.
    public var isSilent: Bool { integrated == nil && (truePeak == nil || seconds >= Self.shortestMeasurable) }

    /// Sound, but shorter than one gating block: it plays at its own level.
    public var isTooShortToMeasure: Bool { integrated == nil && !isSilent }
    public var isClipped: Bool { clippedRuns > 0 }

    /// "−23.1 LUFS, peak −4.2 dBTP"; "silent".
    public var summary: String {
        guard let integrated else { return "silent" }
        var text = "\(Self.format(integrated)) LUFS"
        if let truePeak { text += ", peak \(Self.format(truePeak)) dBTP" }
        return text
    }

    /// A level to a tenth: "-23.1", "0.0".
    public static func format(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return tenths == 0 ? "0.0" : String(format: "%.1f", tenths)
    }
}

/// How loud narration plays: levelled to a target (the default, −16 LUFS, the usual level for
/// speech on portable devices), or as recorded.
public enum LoudnessTarget: Sendable, Hashable, CustomStringConvertible {
    case off
    case lufs(Double)

    public static let standard = LoudnessTarget.lufs(-16)
    /// Gain is never raised so far that the true peak passes this.
    public static let peakCeiling = -1.0
    /// Targets a person may ask for.
    public static let range: ClosedRange<Double> = -40 ... -5

    /// `off`, or a level in LUFS (`-16`, `-16.5`, `-16 LUFS`); nil for anything else.
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if ["off", "none", "no"].contains(trimmed) {
            self = .off
            return
        }
        var number = trimmed
        if number.hasSuffix("lufs") { number = String(number.dropLast(4)).trimmingCharacters(in: .whitespaces) }
        guard let value = Double(number), value.isFinite, Self.range.contains(value) else { return nil }
        self = .lufs(value)
    }

    public var description: String {
        switch self {
        case .off: "off"
        case .lufs(let value): "\(Loudness.format(value)) LUFS"
        }
    }

    /// The gain in dB that brings `loudness` to the target without the true peak passing
    /// −1 dBTP: 0 when off, unknown or silent (a silent file is not raised to noise).
    /// `peakOffsetDB`: what the way it plays does to its peaks (a mono file on two channels, 3 dB
    /// down each, measured as one channel at the level it then sounds).
    public func gainDB(for loudness: Loudness?, peakOffsetDB: Double = 0) -> Double {
        guard case .lufs(let target) = self, let loudness, let integrated = loudness.integrated else { return 0 }
        var gain = target - integrated
        if let peak = loudness.truePeak { gain = min(gain, Self.peakCeiling - (peak + peakOffsetDB)) }
        // At most 30 dB either way: beyond that a file holds noise, not a narration to level.
        return min(max(gain, -30), 30)
    }

    /// As a factor on the samples.
    public func gain(for loudness: Loudness?) -> Double {
        let db = gainDB(for: loudness)
        return db == 0 ? 1 : Self.factor(db)
    }

    public static func factor(_ db: Double) -> Double { pow(10, db / 20) }
}

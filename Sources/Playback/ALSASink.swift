import CALSA
import Foundation

/// Plays PCM through an ALSA device by name (`default`, `hw:0`, `null`, `file:'out.raw',raw`).
///
/// `snd_pcm_set_params` with soft resampling lets any device take any file's rate and channels.
/// Underruns (a slow SD card, a busy CPU) are recovered with `snd_pcm_recover` and counted rather
/// than ending playback. The position clock is frames written minus `snd_pcm_delay`, which is what
/// the listener actually hears, not what has been decoded.
///
/// Some devices keep no time: `null`, `file` and anything that ends in them (`plug:null`) accept
/// every write at once and report a delay of 0 right after it, where a device with a clock still
/// holds what it was just given (in the prepared state, all of it). The first write tells which
/// kind this is (`keepsTime`), whatever the device's name.
public final class ALSASink: PCMSink, @unchecked Sendable {
    public let device: String
    /// How much audio ALSA buffers: long enough to survive a scheduling hiccup on a handheld,
    /// short enough that pause, skip and stop are heard promptly.
    public let latency: Duration
    /// Underruns recovered so far.
    public private(set) var underruns = 0
    public private(set) var format: PCMFormat?

    private var pcm: OpaquePointer?
    private var framesWritten = 0
    /// Nil until the first write has shown whether the device holds what it is given.
    private var hasClock: Bool?

    /// True for a device that plays at its own sample clock (until the first write shows otherwise).
    public var keepsTime: Bool { hasClock ?? true }

    /// Opens `device` for playback. Fails with `PlaybackError.noSoundCard` (our message, naming the
    /// device and the way out; ALSA's own stderr chatter is silenced).
    public init(device: String = "default", latency: Duration = .milliseconds(200)) throws(PlaybackError) {
        self.device = device
        self.latency = latency
        PlaybackLibraries.silenceALSA()
        var handle: OpaquePointer?
        let error = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, 0)
        guard error == 0, let handle else {
            throw PlaybackError.noSoundCard(device: device, reason: Self.text(error))
        }
        pcm = handle
    }

    deinit {
        if let pcm {
            snd_pcm_drop(pcm)
            snd_pcm_close(pcm)
        }
    }

    static func text(_ error: Int32) -> String { String(cString: snd_strerror(error)) }

    public func configure(_ format: PCMFormat) throws(PlaybackError) {
        guard let pcm else { throw PlaybackError.deviceFailed(device: device, reason: "already closed") }
        if format == self.format { framesWritten = 0; return }
        if self.format != nil { snd_pcm_drain(pcm) }
        let micros = UInt32(latency.components.seconds * 1_000_000 + latency.components.attoseconds / 1_000_000_000_000)
        let error = snd_pcm_set_params(
            pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED,
            UInt32(format.channels), UInt32(format.sampleRate), 1, micros)
        guard error == 0 else {
            throw PlaybackError.deviceFailed(device: device, reason: "cannot play \(format): \(Self.text(error))")
        }
        self.format = format
        framesWritten = 0
    }

    public func write(_ pcm: UnsafeRawBufferPointer) throws(PlaybackError) {
        guard let handle = self.pcm, let format else {
            throw PlaybackError.deviceFailed(device: device, reason: "written before it was configured")
        }
        var base = pcm.baseAddress
        var remaining = pcm.count / format.bytesPerFrame
        while remaining > 0, let pointer = base {
            let written = snd_pcm_writei(handle, pointer, snd_pcm_uframes_t(remaining))
            if written >= 0 {
                remaining -= Int(written)
                framesWritten += Int(written)
                base = pointer + Int(written) * format.bytesPerFrame
                if hasClock == nil, written > 0 {
                    var delay: snd_pcm_sframes_t = 0
                    if snd_pcm_delay(handle, &delay) == 0 { hasClock = delay > 0 }
                }
                continue
            }
            let error = Int32(written)
            if error == -EAGAIN { continue }
            if error == -EPIPE { underruns += 1 }
            let recovered = snd_pcm_recover(handle, error, 1)
            guard recovered == 0 else {
                throw PlaybackError.deviceFailed(device: device, reason: Self.text(recovered))
            }
        }
    }

    public func drain() throws(PlaybackError) {
        guard let pcm, format != nil else { return }
        snd_pcm_drain(pcm)
        let error = snd_pcm_prepare(pcm)
        guard error == 0 else { throw PlaybackError.deviceFailed(device: device, reason: Self.text(error)) }
    }

    public var playedFrames: Int {
        guard let pcm else { return framesWritten }
        var delay: snd_pcm_sframes_t = 0
        guard snd_pcm_delay(pcm, &delay) == 0 else { return framesWritten }
        return max(0, framesWritten - Int(delay))
    }

    public func close() throws(PlaybackError) {
        guard let pcm else { return }
        self.pcm = nil
        if format != nil { snd_pcm_drain(pcm) }
        snd_pcm_close(pcm)
    }
}

/// Where decoded PCM goes: a sound card, a WAV file, nowhere.
///
/// As in mpg123/out123, the decoder and the output meet only in a `PCMFormat`. A sink is driven by
/// one thread at a time (the audio queue's playback thread): its calls block, so they never run on
/// the cooperative pool. That is why implementations are `Sendable` (they are handed to that thread)
/// yet need no locking of their own.
public protocol PCMSink: AnyObject, Sendable {
    /// Sets the sink up for `format`. The audio queue calls it once, before the first write: later
    /// items in another format are converted to it (libswresample), the output is never reopened.
    /// A WAV file holds one format and refuses another; a device may be set up again.
    func configure(_ format: PCMFormat) throws(PlaybackError)
    /// Writes whole frames of s16le interleaved PCM; blocks while the device is full.
    func write(_ pcm: UnsafeRawBufferPointer) throws(PlaybackError)
    /// Blocks until everything written has been played, then stays ready for more writes.
    func drain() throws(PlaybackError)
    /// Frames heard since `configure`: frames written minus what the device still holds.
    /// The audio queue's position clock.
    var playedFrames: Int { get }
    /// Whether the output plays at its own sample clock, as a sound card does: writes block while
    /// it is full and `playedFrames` follows what is heard. False for outputs that take PCM as fast
    /// as it comes (a WAV file, `NullSink`, ALSA's `null` and `file` devices); wrap those in a
    /// `PacedSink` wherever narration must take real time.
    var keepsTime: Bool { get }
    /// Plays out what is queued and releases the device or file. Safe to call twice.
    func close() throws(PlaybackError)
}

import Foundation

/// Wraps a sink that does not keep time (`NullSink`, a WAV file, ALSA's `null` or `file` devices)
/// and makes it behave like a sound card: writes block once `lead` of audio is queued ahead of the
/// wall clock, and `playedFrames` follows real time. Over a sink that keeps time of its own (a
/// sound card: `keepsTime`) it steps aside, so a caller that needs real time wraps whatever sink
/// it was given. `walk` does (a walk narrated into a WAV file still queues and hears points in
/// real time), `play --no-audio` too; tests use it to pause and skip mid-item.
public final class PacedSink: PCMSink, @unchecked Sendable {
    public let inner: any PCMSink
    public let lead: Duration
    private let clock = ContinuousClock()
    private var format: PCMFormat?
    private var framesWritten = 0
    /// The instant frame 0 was (or would have been) heard. Moved forward on underrun, like a
    /// device that stops its clock when it runs dry.
    private var origin: ContinuousClock.Instant?

    public init(wrapping inner: any PCMSink, lead: Duration = .milliseconds(200)) {
        self.inner = inner
        self.lead = lead
    }

    public func configure(_ format: PCMFormat) throws(PlaybackError) {
        try inner.configure(format)
        self.format = format
        framesWritten = 0
        origin = nil
    }

    private func elapsedFrames(_ now: ContinuousClock.Instant) -> Int {
        guard let origin, let format else { return 0 }
        let elapsed = now - origin
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return Int(seconds * Double(format.sampleRate))
    }

    public func write(_ pcm: UnsafeRawBufferPointer) throws(PlaybackError) {
        guard let format else { return try inner.write(pcm) }
        let now = clock.now
        if origin == nil || elapsedFrames(now) > framesWritten {
            // Ran dry (or first write): playback resumes now with what is written.
            origin = now - .seconds(Double(framesWritten) / Double(format.sampleRate))
        }
        try inner.write(pcm)
        framesWritten += pcm.count / format.bytesPerFrame
        // Asked after the write: an ALSA device shows whether it keeps time on its first one.
        guard !inner.keepsTime else { return }
        // Block until no more than `lead` is queued ahead of the clock, as a full device buffer would.
        let leadSeconds = Double(lead.components.seconds) + Double(lead.components.attoseconds) * 1e-18
        let due = Double(framesWritten) / Double(format.sampleRate) - leadSeconds
        if let origin, due > 0 {
            let deadline = origin + .seconds(due)
            if deadline > clock.now { Thread.sleep(forTimeInterval: Self.seconds(deadline - clock.now)) }
        }
    }

    public func drain() throws(PlaybackError) {
        try inner.drain()
        guard !inner.keepsTime, let origin, let format else { return }
        let end = origin + .seconds(Double(framesWritten) / Double(format.sampleRate))
        if end > clock.now { Thread.sleep(forTimeInterval: Self.seconds(end - clock.now)) }
    }

    public var playedFrames: Int {
        inner.keepsTime ? inner.playedFrames : min(framesWritten, elapsedFrames(clock.now))
    }

    public var keepsTime: Bool { true }

    public func close() throws(PlaybackError) {
        try drain()
        try inner.close()
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}

import Foundation
import TourModel

/// The narration queue a walk plays through: items play back to back, in order, each reported as
/// it is heard.
///
/// Items are identified by a caller-provided string (the walk uses point ids). A file that cannot be
/// played is reported with `failed` and the queue moves on: a bad file never stalls a walk. Stop,
/// skip and pause fade out over a few milliseconds instead of cutting the waveform (a click).
/// All blocking work (decoding, device writes) happens on the queue's own thread.
public actor AudioQueue {
    public enum Event: Sendable, Hashable {
        /// The item's first sample is being heard.
        case started(id: String)
        /// How far into the item the listener is, in seconds; every `positionInterval` (if any), and on pause.
        case position(id: String, seconds: Double)
        /// The item played to its end.
        case finished(id: String)
        /// `skip()` or `stop()` ended the item `seconds` into it (after the fade).
        case stopped(id: String, seconds: Double)
        /// The item played, but not all of it (a truncated or damaged file); `finished` follows.
        case warning(id: String, message: String)
        /// The item could not be played (missing, not MPEG audio, device failure); the queue goes on.
        case failed(id: String, message: String)
    }

    /// Every event, in the order heard. Consume it: events are buffered until read.
    public nonisolated let events: AsyncStream<Event>
    private let engine: PlaybackEngine
    private var volumeLevel: Double = 1

    /// - Parameters:
    ///   - sink: where audio goes; the queue owns it from now on and closes it on `shutdown()`.
    ///   - fade: how long stop, skip and pause take to fade out.
    ///   - positionInterval: how often `position` events come while playing; nil for none (each
    ///     event wakes the consumer, which a batch job like `play --output` need not pay for).
    /// How often a playing item reports its position unless told otherwise: four times a second
    /// keeps a screen's clock and subtitles in step without waking a handheld more than it must.
    public static let defaultPositionInterval: Duration = .milliseconds(250)

    public init(
        sink: any PCMSink, fade: Duration = .milliseconds(30),
        positionInterval: Duration? = AudioQueue.defaultPositionInterval
    ) {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
        events = stream
        func seconds(_ d: Duration) -> Double {
            Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
        }
        engine = PlaybackEngine(
            sink: sink, fadeSeconds: seconds(fade),
            positionInterval: positionInterval.map { max(0.01, seconds($0)) }, emit: continuation)
        engine.start()
    }

    deinit { engine.requestShutdown() }

    /// Adds the audio file at `url` to the end of the queue, played `gainDB` louder (or quieter)
    /// than recorded: the loudness levelling's gain (`LoudnessTarget.gainDB(for:)`), 0 for as recorded.
    public func enqueue(_ url: URL, id: String, gainDB: Double = 0) {
        engine.enqueue(.init(id: id, source: .file(url), level: Self.level(gainDB)))
    }

    /// Adds the audio file at `url`, levelled to `target` by its measured `loudness` (nil: as
    /// recorded). A mono file plays on both channels 3 dB down, so its peaks leave that much more
    /// room (`LoudnessTarget.gainDB(for:peakOffsetDB:)`); which it is shows once it is opened.
    public func enqueue(_ url: URL, id: String, loudness: Loudness?, target: LoudnessTarget) {
        engine.enqueue(
            .init(
                id: id, source: .file(url), level: Self.level(Self.gainDB(target, for: loudness, channels: 2)),
                monoLevel: Self.level(Self.gainDB(target, for: loudness, channels: 1)),
                onlyChannel: loudness?.onlyChannel))
    }

    /// What libswresample's mono-to-stereo upmix does to each channel (1/√2).
    public static let monoUpmixDB = 20 * log10(0.5.squareRoot())

    /// The gain a narration of `channels` channels plays with, levelled to `target`: what the
    /// queue applies and what `preview` reports.
    /// A stereo narration on one channel plays as the mono it is (`Loudness.onlyChannel`).
    public static func gainDB(_ target: LoudnessTarget, for loudness: Loudness?, channels: Int) -> Double {
        let mono = channels == 1 || loudness?.onlyChannel != nil
        return target.gainDB(for: loudness, peakOffsetDB: mono ? monoUpmixDB : 0)
    }

    /// Adds audio held in memory; `name` is used in messages.
    public func enqueue(data: Data, name: String, id: String, gainDB: Double = 0) {
        engine.enqueue(.init(id: id, source: .data(data, name: name), level: Self.level(gainDB)))
    }

    private static func level(_ gainDB: Double) -> Float {
        gainDB == 0 || !gainDB.isFinite ? 1 : Float(LoudnessTarget.factor(min(30, max(-60, gainDB))))
    }

    /// Fades out and holds the current item where it is; `resume()` goes on from the same sample.
    public func pause() { engine.setPaused(true) }
    public func resume() { engine.setPaused(false) }
    public var isPaused: Bool { engine.isPaused }

    /// Fades out the current item and goes on with the next one.
    public func skip() { engine.skip() }

    /// Fades out the current item and forgets the rest of the queue.
    public func stop() { engine.stop() }

    /// The gain applied to everything, 0 (silent) ... 1 (as recorded). Changes glide over the fade time.
    public var volume: Double { volumeLevel }
    public func setVolume(_ level: Double) {
        volumeLevel = min(1, max(0, level.isNaN ? 1 : level))
        engine.setVolume(Float(volumeLevel))
    }

    /// The id of the item being decoded now, if any.
    public var currentID: String? { engine.currentID }
    /// The ids waiting after the current one.
    public var pendingIDs: [String] { engine.pendingIDs }

    /// Stops playback, closes the sink, ends `events`, and waits for the playback thread to exit.
    public func shutdown() async { await engine.shutdown() }
}

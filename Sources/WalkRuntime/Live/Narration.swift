import Foundation
import Playback
import TourModel
import Walk

/// What the live walk hears back from whatever voices the narration.
public enum NarrationEvent: Sendable, Hashable {
    case started(pointID: String, duration: Double?)
    case position(pointID: String, seconds: Double)
    case finished(pointID: String)
    case failed(pointID: String, message: String)
    case warning(pointID: String, message: String)
}

/// The seam between the live walk and the audio: the real thing is `QueueNarration` (an
/// `AudioQueue` on an ALSA device or a WAV file); `--no-audio` uses `SilentNarration`, which takes
/// each file's real duration in wall-clock time so the walk unfolds exactly as with sound.
public protocol Narration: Sendable {
    var events: AsyncStream<NarrationEvent> { get }
    func play(_ point: PlayablePoint) async
    /// Ends the current narration (after a short fade); no `finished` follows for it.
    func stop() async
    func pause() async
    func resume() async
    func shutdown() async
}

/// Narration through the playback module's queue.
public final class QueueNarration: Narration {
    public let events: AsyncStream<NarrationEvent>
    private let queue: AudioQueue
    private let loudness: LoudnessTarget
    private let forward: Task<Void, Never>

    /// `loudness`: the level each point's narration is brought to, from its measured loudness.
    public init(queue: AudioQueue, loudness: LoudnessTarget = .off) {
        self.queue = queue
        self.loudness = loudness
        let (stream, continuation) = AsyncStream.makeStream(of: NarrationEvent.self)
        events = stream
        forward = Task {
            for await event in queue.events {
                switch event {
                case .started(let id):
                    continuation.yield(.started(pointID: id, duration: nil))
                case .position(let id, let seconds):
                    continuation.yield(.position(pointID: id, seconds: seconds))
                case .finished(let id):
                    continuation.yield(.finished(pointID: id))
                case .failed(let id, let message):
                    continuation.yield(.failed(pointID: id, message: message))
                case .warning(let id, let message):
                    continuation.yield(.warning(pointID: id, message: message))
                case .stopped:
                    break  // the walk asked for it and has moved on already
                }
            }
            continuation.finish()
        }
    }

    public func play(_ point: PlayablePoint) async {
        guard let audio = point.audio else { return }
        await queue.enqueue(audio, id: point.id, loudness: point.loudness, target: loudness)
    }

    public func stop() async { await queue.stop() }
    public func pause() async { await queue.pause() }
    public func resume() async { await queue.resume() }

    public func shutdown() async {
        await queue.shutdown()
        await forward.value
    }
}

/// `--no-audio`: each narration "plays" for its decoded duration of wall-clock time, so the walk
/// (queueing, completion, progress) behaves as it would with sound. Like the real queue it reports
/// how far it has got every `positionInterval` (the screen's clock and subtitles follow it) and
/// once more on pause; pausing holds the remaining time.
public actor SilentNarration: Narration {
    public nonisolated let events: AsyncStream<NarrationEvent>
    private let continuation: AsyncStream<NarrationEvent>.Continuation
    private let clock: any Clock<Duration>
    private let positionInterval: Double
    /// The narration "playing": its length, the seconds heard before `since`, and since when it
    /// has been running (nil while paused).
    private var current: (id: String, duration: Double, heard: Double, since: ContinuousClock.Instant?)?
    private var timer: Task<Void, Never>?
    private var paused = false
    private var generation = 0

    public init(
        clock: any Clock<Duration> = ContinuousClock(),
        positionInterval: Duration = AudioQueue.defaultPositionInterval
    ) {
        (events, continuation) = AsyncStream.makeStream(of: NarrationEvent.self)
        self.clock = clock
        self.positionInterval = max(0.01, Self.seconds(positionInterval))
    }

    public func play(_ point: PlayablePoint) async {
        guard let url = point.audio else { return }
        do {
            let info = try AudioProbe.inspect(url)
            stopTimer()
            current = (point.id, info.duration, 0, paused ? nil : ContinuousClock.now)
            continuation.yield(.started(pointID: point.id, duration: info.duration))
            if !paused { arm() }
        } catch {
            continuation.yield(.failed(pointID: point.id, message: error.message))
        }
    }

    public func stop() async {
        stopTimer()
        current = nil
    }

    public func pause() async {
        guard !paused else { return }
        paused = true
        stopTimer()
        guard let c = current else { return }
        let heard = self.heard(c)
        current = (c.id, c.duration, heard, nil)
        continuation.yield(.position(pointID: c.id, seconds: heard))
    }

    public func resume() async {
        guard paused else { return }
        paused = false
        guard let c = current else { return }
        current = (c.id, c.duration, c.heard, ContinuousClock.now)
        arm()
    }

    public func shutdown() async {
        stopTimer()
        continuation.finish()
    }

    private func heard(_ c: (id: String, duration: Double, heard: Double, since: ContinuousClock.Instant?)) -> Double {
        min(c.duration, c.heard + (c.since.map { Self.seconds(ContinuousClock.now - $0) } ?? 0))
    }

    /// Sleeps until the next position report or the end, whichever comes first.
    private func arm() {
        guard let c = current else { return }
        generation += 1
        let token = generation
        let clock = clock
        let wait = min(positionInterval, max(0, c.duration - heard(c)))
        timer = Task { [weak self] in
            try? await clock.sleep(for: .microseconds(Int64((wait * 1_000_000).rounded(.up))))
            guard !Task.isCancelled else { return }
            await self?.tick(token: token)
        }
    }

    private func tick(token: Int) {
        guard token == generation, let c = current else { return }
        let heard = self.heard(c)
        // Within a millisecond of the end is the end: sleeping is never that exact.
        if heard >= c.duration - 0.001 {
            current = nil
            timer = nil
            continuation.yield(.finished(pointID: c.id))
            return
        }
        continuation.yield(.position(pointID: c.id, seconds: heard))
        arm()
    }

    private func stopTimer() {
        generation += 1
        timer?.cancel()
        timer = nil
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
}

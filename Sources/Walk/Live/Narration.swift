import Foundation
import Playback
import TourModel

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
    private let forward: Task<Void, Never>

    public init(queue: AudioQueue) {
        self.queue = queue
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
        await queue.enqueue(audio, id: point.id)
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
/// (queueing, completion, progress) behaves as it would with sound. Pausing holds the remaining time.
public actor SilentNarration: Narration {
    public nonisolated let events: AsyncStream<NarrationEvent>
    private let continuation: AsyncStream<NarrationEvent>.Continuation
    private let clock: any Clock<Duration>
    private var current: (id: String, remaining: Double, startedAt: ContinuousClock.Instant)?
    private var timer: Task<Void, Never>?
    private var paused = false
    private var generation = 0

    public init(clock: any Clock<Duration> = ContinuousClock()) {
        (events, continuation) = AsyncStream.makeStream(of: NarrationEvent.self)
        self.clock = clock
    }

    public func play(_ point: PlayablePoint) async {
        guard let url = point.audio else { return }
        do {
            let info = try AudioProbe.inspect(url)
            stopTimer()
            current = (point.id, info.duration, ContinuousClock.now)
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
        if let c = current {
            let elapsed = ContinuousClock.now - c.startedAt
            current?.remaining = max(0, c.remaining - Self.seconds(elapsed))
        }
        stopTimer()
    }

    public func resume() async {
        guard paused else { return }
        paused = false
        if current != nil {
            current?.startedAt = ContinuousClock.now
            arm()
        }
    }

    public func shutdown() async {
        stopTimer()
        continuation.finish()
    }

    private func arm() {
        guard let c = current else { return }
        generation += 1
        let token = generation
        let clock = clock
        timer = Task { [weak self] in
            try? await clock.sleep(for: .milliseconds(Int64((c.remaining * 1000).rounded())))
            guard !Task.isCancelled else { return }
            await self?.fire(token: token)
        }
    }

    private func fire(token: Int) {
        guard token == generation, let c = current else { return }
        current = nil
        timer = nil
        continuation.yield(.finished(pointID: c.id))
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

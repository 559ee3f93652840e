import FileAccess
import Foundation
import TourAPI

/// Sends the outbox in the background while a walk runs, without ever holding the walk up: the
/// walk's loop only records (a short SQLite transaction) and calls `nudge()`, which returns at once.
///
/// A nudge (a tour event was recorded) starts a flush when the last one went well, or when the
/// service was unreachable and the last attempt is `schedule.floor` old: the walk is awake then
/// anyway. After a failed flush a single timer waits for the backoff (15 s doubling to 5 minutes,
/// or the service's `Retry-After`, which a nudge never cuts short). Nothing wakes otherwise: no
/// polling, and no timer at all while nothing waits or every send went well.
public final class BackgroundSender: @unchecked Sendable {
    private enum Signal: Sendable {
        case nudge
        case wake
        case finish(deadline: Date)
        /// Everything given before it has been acted on.
        case settled(CheckedContinuation<Void, Never>)
    }

    /// Makes the batcher on first need (the HTTP client is created only then); nil: it cannot be
    /// made (no service configured), and the sender does nothing.
    private let makeBatcher: @Sendable () async -> Batcher?
    private let schedule: SendSchedule
    private let lock: LockFile?
    private let timer: any RetryTimer
    private let jitter: any JitterSource
    private let signals: AsyncStream<Signal>
    private let sink: AsyncStream<Signal>.Continuation
    private let state = NSLock()
    private var loop: Task<FlushReport?, Never>?
    private var lastReach = Reach.unknown

    public init(
        schedule: SendSchedule = .background, lock: LockFile? = nil, timer: any RetryTimer = SystemRetryTimer(),
        jitter: any JitterSource = SystemJitter(), makeBatcher: @escaping @Sendable () async -> Batcher?
    ) {
        self.makeBatcher = makeBatcher
        self.schedule = schedule
        self.lock = lock
        self.timer = timer
        self.jitter = jitter
        (signals, sink) = AsyncStream.makeStream(of: Signal.self, bufferingPolicy: .unbounded)
    }

    /// What the last attempt found: new events recorded while the service is known to be
    /// unreachable are stamped `offline` at once.
    public var reach: Reach { state.withLock { lastReach } }

    public func start() {
        state.withLock {
            guard loop == nil else { return }
            loop = Task { await self.run() }
        }
    }

    /// A tour event was recorded: send if it is time. Never blocks.
    public func nudge() {
        sink.yield(.nudge)
    }

    /// Returns once every nudge given before it has been acted on (sent, or found not due):
    /// signals are handled in order, one at a time. Returns at once when the sender has finished.
    public func settled() async {
        await withCheckedContinuation { continuation in
            if case .terminated = sink.yield(.settled(continuation)) { continuation.resume() }
        }
    }

    /// Ends the sender: one last flush (the round in flight, if any, then what still waits), within
    /// `budget` all told. Returns the last flush's report (nil when none was made).
    public func finish(within budget: Duration) async -> FlushReport? {
        let deadline = timer.now().addingTimeInterval(
            Double(budget.components.seconds) + Double(budget.components.attoseconds) / 1e18)
        sink.yield(.finish(deadline: deadline))
        sink.finish()
        guard let loop = state.withLock({ loop }) else { return nil }
        // A round stuck in a slow exchange is cancelled at the deadline (its events stay waiting).
        let guardian = Task {
            try? await Task.sleep(for: budget + .milliseconds(250))
            loop.cancel()
        }
        let report = await loop.value
        guardian.cancel()
        return report
    }

    private func run() async -> FlushReport? {
        var failures = 0
        var next: Date?
        var binding = false
        var lastAttempt: Date?
        var wake: Task<Void, Never>?
        var last: FlushReport?
        for await signal in signals {
            let now = timer.now()
            var patience = Batcher.Patience(maxUnreachable: 1)
            switch signal {
            case .settled(let continuation):
                continuation.resume()
                continue
            case .nudge:
                if let next, now < next {
                    if binding { continue }
                    if let lastAttempt, now.timeIntervalSince(lastAttempt) < seconds(schedule.floor) { continue }
                }
            case .wake:
                break
            case .finish(let deadline):
                wake?.cancel()
                patience = Batcher.Patience(deadline: deadline, schedule: .afterCommand, maxUnreachable: 1)
                if binding, let next, next > deadline { return last }
            }
            wake?.cancel()
            wake = nil
            guard let batcher = await makeBatcher() else { continue }
            guard lock.map({ $0.tryAcquire(purpose: "sending analytics") == .held }) ?? true else {
                // Another walkscape is sending: look again a little later.
                next = now.addingTimeInterval(seconds(schedule.floor))
                binding = false
                wake = wakeUp(after: schedule.floor)
                continue
            }
            lastAttempt = now
            let report = await batcher.flush(patience)
            lock?.release()
            last = report
            if let reached = report.reached {
                state.withLock { lastReach = reached ? .reachable : .unreachable }
            }
            if case .finish = signal { return report }
            switch report.outcome {
            case .emptied:
                failures = 0
                next = nil
                binding = false
            case .stopped(_, _, let retryAfter):
                failures += 1
                let wait = schedule.wait(afterFailures: failures, retryAfter: retryAfter, fraction: jitter.fraction())
                next = timer.now().addingTimeInterval(seconds(wait))
                binding = retryAfter != nil
                wake = wakeUp(after: wait)
            case .failed, .outboxFailed:
                // Not cured by waiting a little: try again only at the longest backoff.
                failures += 1
                next = timer.now().addingTimeInterval(seconds(schedule.backoff.maxDelay))
                binding = true
                wake = wakeUp(after: schedule.backoff.maxDelay)
            }
        }
        wake?.cancel()
        return last
    }

    private func wakeUp(after wait: Duration) -> Task<Void, Never> {
        Task { [sink, timer] in
            do { try await timer.sleep(for: wait) } catch { return }
            sink.yield(.wake)
        }
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

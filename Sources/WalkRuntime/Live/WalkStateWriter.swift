import FileAccess
import Foundation
import Walk

/// Puts the walk's progress and analytics events on disk, and keeps them when the disk will not
/// take them (full, read-only, the state folder gone), so a walk never stops for its bookkeeping.
///
/// Events that could not be recorded wait in memory, in order, and go out ahead of any later
/// event; only the newest progress matters, so it replaces the one waiting. Every later change
/// tries again (and `retryIfDue` on other inputs, at most every `retryInterval`). The runtime is
/// told once when an outage begins and once when it ends, never per failed write.
public struct WalkStateWriter: Sendable {
    public enum Report: Sendable, Hashable {
        /// The first failure of an outage: why (the walk goes on).
        case failing(String)
        /// Everything held back is on disk now.
        case recovered
    }

    public let store: ProgressStore
    public let journal: any WalkEventRecorder
    /// The tour's walk lock, if the walk could not take it at the start (a state folder that was
    /// not writable then): taken before the first save, so two walks never both save.
    public let lock: LockFile?
    public var retryInterval: TimeInterval = 5

    private var pendingEvents: [(event: WalkEvent, id: UUID)] = []
    private var pendingProgress: WalkProgress?
    private var outage: String?
    private var lastAttempt: Date?

    public init(store: ProgressStore, journal: any WalkEventRecorder, lock: LockFile? = nil) {
        self.store = store
        self.journal = journal
        self.lock = lock
    }

    /// True while something waits to be written.
    public var isBehind: Bool { !pendingEvents.isEmpty || pendingProgress != nil }

    /// What is still not on disk, for the walker, or nil when everything is.
    public var unsaved: String? {
        guard isBehind else { return nil }
        var parts: [String] = []
        if !pendingEvents.isEmpty {
            parts.append("\(pendingEvents.count) analytics event\(pendingEvents.count == 1 ? "" : "s")")
        }
        if pendingProgress != nil { parts.append("the walk's progress") }
        return "\(parts.joined(separator: " and ")) could not be saved (\(outage ?? "the disk refused them"))"
    }

    public mutating func record(_ event: WalkEvent, at time: Date) -> Report? {
        // The id is fixed now, so a retried line is the same event to the outbox's de-duplication.
        pendingEvents.append((event, UUID()))
        return flush(at: time)
    }

    public mutating func save(_ progress: WalkProgress, at time: Date) -> Report? {
        pendingProgress = progress
        return flush(at: time)
    }

    /// Tries again if something waits and the last try is `retryInterval` old.
    public mutating func retryIfDue(at time: Date) -> Report? {
        guard isBehind, let last = lastAttempt, time.timeIntervalSince(last) >= retryInterval else { return nil }
        return flush(at: time)
    }

    /// Writes everything waiting, events first and in order; stops at the first event that fails.
    public mutating func flush(at time: Date) -> Report? {
        lastAttempt = time
        var problem: String?
        while let next = pendingEvents.first {
            do {
                try journal.append(next.event, eventID: next.id)
                pendingEvents.removeFirst()
            } catch {
                problem = error.message
                break
            }
        }
        if let progress = pendingProgress {
            switch lock.map(store.acquire) ?? .held {
            case .held:
                do {
                    try store.save(progress)
                    pendingProgress = nil
                } catch {
                    problem = problem ?? error.message
                }
            case .busy(let holder):
                // Another walk of the tour started meanwhile: its progress is not ours to overwrite.
                problem =
                    problem
                    ?? "another walk of this tour\(holder.map { " (pid \($0.pid))" } ?? "") is saving its progress"
            case .unavailable(let reason):
                problem = problem ?? "cannot lock \(lock?.path ?? "the walk"): \(reason)"
            }
        }
        if let problem {
            guard outage == nil else { return nil }
            outage = problem
            return .failing(problem)
        }
        guard outage != nil else { return nil }
        outage = nil
        return .recovered
    }
}

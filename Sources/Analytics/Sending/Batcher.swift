import FileAccess
import Foundation
import TourAPI
import TourModel

/// Flushes the outbox to one service (docs/analytics.md, "Batching"):
/// - batches of at most 50 events and about 64 kB, oldest first, so the service sees the order in
///   which things happened;
/// - 204: the batch leaves the outbox in the transaction that records it as sent;
/// - 413: the batch is split in two and the size limit halved for the rest of the run; a single
///   event too large is quarantined;
/// - 400: the batch is bisected until each refused event stands alone, and that event is
///   quarantined with the service's words (kept, never sent again by itself), the others delivered;
/// - 5xx while the service's health check answers: the batch holds events the service fails on
///   (the live service answers 500 for an event naming a tour, point or account it no longer has);
///   it is bisected like a 400, and an event that fails alone four times in a row, the service
///   still answering, is quarantined with the reason, so one unpublished tour does not hold back
///   everything after;
/// - 5xx from a service that is not answering, 429, timeouts, broken or refused connections: stop,
///   or wait (`Patience`) and try again.
///
/// At least once: an event is deleted only after its 204, so a batch cut off by a kill goes again,
/// with the same `eventId`s the service de-duplicates by. Batches taken whole are committed while the
/// next ones are on their way (the disk's flush and the service's answers overlap); a kill before
/// that commit sends them again, the same way.
public struct Batcher: Sendable {
    /// How long to keep trying.
    public struct Patience: Sendable, Hashable {
        /// Give up at this time (nil: no limit but the transport's own timeouts).
        public var deadline: Date?
        /// How to wait between failed attempts; nil: stop at the first failure and let the caller
        /// schedule the next try (the walk's background sender).
        public var schedule: SendSchedule?
        /// Give up after this many attempts in a row that could not connect at all.
        public var maxUnreachable: Int
        /// When set, the time a batch the service took spent on its way does not count: the
        /// deadline moves on by as much. What is limited is the time spent failing (`sync
        /// --max-time`), in all, not the whole flush: a slow service that takes every batch is sent
        /// everything, and one that fails mostly still meets the deadline.
        public var deliveriesDoNotCount: Bool

        public init(
            deadline: Date? = nil, schedule: SendSchedule? = nil, maxUnreachable: Int = 3,
            deliveriesDoNotCount: Bool = false
        ) {
            self.deadline = deadline
            self.schedule = schedule
            self.maxUnreachable = max(1, maxUnreachable)
            self.deliveriesDoNotCount = deliveriesDoNotCount
        }
    }

    public var outbox: Outbox
    /// `ServiceURL.key` of the service: only its events are sent.
    public var service: String
    public var transport: any BatchTransport
    public var limits: BatchLimits
    public var timer: any RetryTimer
    public var jitter: any JitterSource

    public init(
        outbox: Outbox, service: String, transport: any BatchTransport, limits: BatchLimits = BatchLimits(),
        timer: any RetryTimer = SystemRetryTimer(), jitter: any JitterSource = SystemJitter()
    ) {
        self.outbox = outbox
        self.service = service
        self.transport = transport
        self.limits = limits
        self.timer = timer
        self.jitter = jitter
    }

    /// Sent ids are remembered this long (for an import that runs twice), then forgotten.
    static let sentMemory: TimeInterval = 30 * 24 * 3600
    /// How long the reads, commits and notes started beside a batch wait before they begin, so that
    /// the batch's request is written first: they are started just before it is sent, and on two
    /// cores (the service's handling on one) their work held the request back by its own length,
    /// 1-2 ms, at every eighth batch (`tcpdump` of a flush of 10,000 events: 48 such pauses, 98 ms
    /// in all; with this head start 9, 18 ms). Nothing waits for them sooner than a round trip later.
    static let headStart = Duration.microseconds(600)

    /// Starts disk work beside the batch about to be sent (a read, a commit, a note, forgetting),
    /// `headStart` after it, on a thread of its own.
    static func beside<T: Sendable>(_ body: @escaping @Sendable () throws(OutboxError) -> T) -> DiskJob<T, OutboxError>
    {
        DiskWait.start(after: headStart, body)
    }
    /// Why a batch went unanswered when the time allowed ran out while it was on its way.
    static let outOfTime = "out of time before the service answered"
    /// An attempt needs at least this much of the time left to be worth making.
    static let shortestAttempt = Duration.milliseconds(100)

    /// How many batches are read from the outbox at a time, ahead of sending. The next read starts
    /// when half of them are still to go, so that it has their round trips to finish in.
    static let readAhead = 8
    /// Batches taken whole are committed together once this many wait, or once the first of them
    /// has waited `commitAfter`, and only when the commit before them is done. Fewer, larger
    /// commits sync the disk and write the pages they share once, which leaves the CPU to the
    /// sending and the service; a kill sends what was not committed again, with the ids the
    /// service counts once.
    static let commitEvery = 8
    static let commitAfter: TimeInterval = 0.5
    /// On a disk slower than the service (an SD card), commits fall behind; once this many
    /// batches are uncommitted (in the commit under way and after it), the sending waits for that
    /// commit, so a kill sends at most these again, and the one on its way.
    static let uncommittedAtMost = 64
    /// How many times in a row a single event must fail by itself with a 5xx, the service
    /// answering its health check each time, before it is quarantined. A service failing at
    /// random (30 % of requests) now and then bisects an innocent event down to itself (its first
    /// failure alone); three more in a row then happen about once in 37 such descents, where the
    /// one more that two failures needed happened about once in three.
    static let failuresAloneToQuarantine = 4

    /// Whether a 5xx may be the events' doing (the live service's 500 for an event naming what it
    /// no longer has): not 502, 503 or 504, a gateway's or an overloaded service's answer, which a
    /// service failing at random gave an innocent event four times in a row.
    static func mayBeTheEvents(_ status: Int) -> Bool { ![502, 503, 504].contains(status) }

    /// Sends until nothing waits for the service, or patience runs out.
    ///
    /// The disk stays off the sending's path: batches are read `readAhead` at a time, the next
    /// read starts when half of them are still to go, and batches the service took whole are
    /// committed together (one transaction, one flush of the disk) once `commitEvery` wait or the
    /// first has waited `commitAfter`, when the commit before them is done, while the next batches
    /// go out. Anything but a batch taken whole waits for what is under way and starts again from
    /// the outbox as it then is.
    public func flush(_ patience: Patience) async -> FlushReport {
        var report = FlushReport()
        var maxBytes = limits.maxBytes
        var failures = 0
        var unreachableInRow = 0
        // The last `resolveOffline` made: the same mark and answer again would change nothing
        // (an unreachable answer scans the events waiting).
        var resolved: (through: Int64, offline: Bool)?
        // A reached service's mark being written (off the sending's path; waited for before an
        // unreachable answer is written, and at the end).
        var noting: DiskJob<Void, OutboxError>?
        // Batches the service took whole and not yet committed.
        var unsaved = Unsaved()
        // Batches read and not yet sent, in order; the last seq taken from the outbox (events up
        // to it are sent or on their way); the newest seq when they were read; the read under way.
        var queue: ArraySlice<[PendingEvent]> = []
        var cursor: Int64 = 0
        var mark: Int64 = 0
        var reading: DiskJob<Ahead, OutboxError>?
        // Sent events 30 days old forgotten, once something was delivered, beside the sending
        // (10,000 of them took 25 ms, each id on its own page of the `eventId` index).
        var forgetting: DiskJob<Void, OutboxError>?
        // Events failed on before the service took any other: set aside once it has, else waiting.
        var suspects: [Suspect] = []
        var deadline = patience.deadline
        do throws(OutboxError) {
            while true {
                if Task.isCancelled {
                    report.outcome = .stopped(reason: "cancelled", unreachable: false, retryAfter: nil)
                    break
                }
                if let deadline, remaining(until: deadline) < Self.shortestAttempt {
                    report.outcome = .stopped(reason: "out of time", unreachable: false, retryAfter: nil)
                    break
                }
                let batchLimits = BatchLimits(maxEvents: limits.maxEvents, maxBytes: maxBytes)
                if queue.isEmpty {
                    // The read under way if it read what comes next within these limits, else now.
                    if let ahead = try await reading?.value(), ahead.after == cursor, ahead.limits == batchLimits {
                        (queue, mark) = (ahead.batches[...], ahead.mark)
                    }
                    reading = nil
                    if queue.isEmpty {
                        queue = try outbox.pendingBatches(
                            for: service, limits: batchLimits, after: cursor, count: Self.readAhead)[...]
                        mark = try outbox.lastSeq()
                    }
                }
                guard var batch = queue.popFirst(), let last = batch.last else {
                    report.outcome = .emptied
                    break
                }
                cursor = last.seq
                // Events held out of this flush are not sent again in it (the outbox, read again
                // from the start after a bisection, still has them).
                if !suspects.isEmpty {
                    let held = Set(suspects.map(\.event.seq))
                    batch.removeAll { held.contains($0.seq) }
                    if batch.isEmpty { continue }
                }
                // A commit that has ended says now if it failed; then what went through since, when
                // enough waits and that commit is done (or so much waits that it is waited for);
                // then the next read, when half of the batches read are sent: both run while this
                // batch is on its way.
                try await unsaved.reapCommit()
                if unsaved.commitIsDue(now: timer.now()) { try await unsaved.startCommit(outbox, at: timer.now()) }
                if reading == nil, queue.count <= Self.readAhead / 2 {
                    reading = startReading(after: queue.last?.last?.seq ?? cursor, limits: batchLimits)
                }
                var delivered: [PendingEvent] = []
                let attemptsBefore = report.attempts
                // When this batch went: an answer that took `commitAfter` commits it at once.
                let sentAt = timer.now()
                let sentBefore = report.sent
                let sent: Result<DeliveryResult?, OutboxError>
                do {
                    sent = .success(
                        try await send(
                            batch, report: &report, maxBytes: &maxBytes, deadline: deadline,
                            delivered: &delivered, suspects: &suspects, deferCommit: true))
                } catch { sent = .failure(error) }
                var stop = try sent.get()
                if patience.deliveriesDoNotCount, report.sent > sentBefore {
                    deadline = deadline?.addingTimeInterval(timer.now().timeIntervalSince(sentAt))
                }
                if forgetting == nil, report.sent > 0 {
                    let (outbox, before) = (outbox, timer.now().addingTimeInterval(-Self.sentMemory))
                    forgetting = Self.beside { () throws(OutboxError) in
                        try outbox.forgetSent(before: before)
                    }
                }
                if !delivered.isEmpty {
                    // Taken whole (only then is anything handed back to commit).
                    unsaved.add(delivered, sentAt: sentAt)
                } else {
                    // Split, bisected, set aside or stopped: everything under way is finished, and
                    // the next batch is read from the outbox as it is now.
                    _ = try await reading?.value()
                    reading = nil
                    try await unsaved.commitAll(outbox, at: timer.now())
                    queue = []
                    cursor = 0
                }
                // A failing service not answering its health check either is waited out like any.
                if case .serviceFailed(_, let reason, let after)? = stop {
                    stop = .retryLater(reason: reason, unreachable: false, after: after)
                }
                let unreachable: Bool
                if case .retryLater(_, true, _)? = stop { unreachable = true } else { unreachable = false }
                // Events recorded before this attempt with no word on `offline` get its answer (a
                // reached service is one small note; an unreachable one marks what is unknown). No
                // attempt made (out of time before it), no answer.
                if report.attempts > attemptsBefore {
                    report.reached = !unreachable
                    if resolved?.through != mark || resolved?.offline != unreachable {
                        // One at a time, in order: an unreachable answer after a reached one must
                        // find its mark written.
                        try await noting?.value()
                        noting = nil
                        if unreachable {
                            try outbox.resolveOffline(service: service, throughSeq: mark, offline: true)
                        } else {
                            let (outbox, service, mark) = (outbox, service, mark)
                            noting = Self.beside { () throws(OutboxError) in
                                try outbox.resolveOffline(service: service, throughSeq: mark, offline: false)
                            }
                        }
                        resolved = (mark, unreachable)
                    }
                }
                guard let stop else {
                    failures = 0
                    unreachableInRow = 0
                    continue
                }
                switch stop {
                case .retryLater(let reason, let unreachable, let after):
                    failures += 1
                    unreachableInRow = unreachable ? unreachableInRow + 1 : 0
                    report.outcome = .stopped(reason: reason, unreachable: unreachable, retryAfter: after)
                    guard let schedule = patience.schedule, unreachableInRow < patience.maxUnreachable else { break }
                    let wait = schedule.wait(afterFailures: failures, retryAfter: after, fraction: jitter.fraction())
                    if let deadline, remaining(until: deadline) < wait + Self.shortestAttempt {
                        break
                    }
                    do { try await timer.sleep(for: wait) } catch { break }
                    continue
                case .failed(let reason):
                    report.outcome = .failed(reason: reason)
                default:
                    continue
                }
                break
            }
            for suspect in suspects where report.sent > suspect.sentBefore { try quarantine(suspect, report: &report) }
            if let waiting = suspects.first(where: { report.sent == $0.sentBefore }), report.outcome == .emptied {
                report.outcome = .stopped(
                    reason: Self.failsOnEverything(waiting.status), unreachable: false, retryAfter: nil)
            }
            _ = try await reading?.value()
            try await noting?.value()
            try await unsaved.commitAll(outbox, at: timer.now())
            if let problem = report.problem { try outbox.noteProblem(problem, at: timer.now()) }
            try await forgetting?.value()
        } catch {
            // Whatever was delivered is still committed if the outbox lets it be.
            _ = try? await reading?.value()
            _ = try? await noting?.value()
            _ = try? await forgetting?.value()
            try? await unsaved.commitAll(outbox, at: timer.now())
            report.outcome = .outboxFailed(reason: error.message)
        }
        return report
    }

    /// Batches the service took whole and not yet committed: those waiting for a commit, and the
    /// commit under way (on another thread, off Swift's pool: it holds its thread until the disk
    /// answers).
    struct Unsaved {
        var waiting: [PendingEvent] = []
        var waitingBatches = 0
        /// When the first of `waiting` was sent.
        var since: Date?
        var commit: DiskJob<Void, OutboxError>?
        var committingBatches = 0

        mutating func add(_ events: [PendingEvent], sentAt: Date) {
            waiting += events
            waitingBatches += 1
            if since == nil { since = sentAt }
        }

        /// Enough waits (`commitEvery`, or for `commitAfter`), and the commit before is done, or
        /// so much is uncommitted (`uncommittedAtMost`) that it is to be waited for.
        func commitIsDue(now: Date) -> Bool {
            guard
                waitingBatches >= Batcher.commitEvery
                    || since.map({ now.timeIntervalSince($0) >= Batcher.commitAfter }) ?? false
            else { return false }
            return commit == nil || waitingBatches + committingBatches >= Batcher.uncommittedAtMost
        }

        /// A commit that has ended: its failure, if it failed.
        mutating func reapCommit() async throws(OutboxError) {
            guard let ended = commit, ended.isDone else { return }
            (commit, committingBatches) = (nil, 0)
            try await ended.value()
        }

        /// Commits what waits, after the commit under way; under way when this returns.
        mutating func startCommit(_ outbox: Outbox, at time: Date) async throws(OutboxError) {
            try await commit?.value()
            (commit, committingBatches) = (nil, 0)
            guard !waiting.isEmpty else { return }
            let batch = waiting
            commit = Batcher.beside { () throws(OutboxError) in
                try outbox.markSent(batch, at: time)
            }
            (committingBatches, waiting, waitingBatches, since) = (waitingBatches, [], 0, nil)
        }

        /// Everything committed (the commit under way, then what waits), and waited for.
        mutating func commitAll(_ outbox: Outbox, at time: Date) async throws(OutboxError) {
            let running = commit
            (commit, committingBatches) = (nil, 0)
            var failure: OutboxError?
            do { try await running?.value() } catch { failure = error }
            try await startCommit(outbox, at: time)
            let last = commit
            (commit, committingBatches) = (nil, 0)
            try await last?.value()
            if let failure { throw failure }
        }
    }

    /// Batches read ahead: those after `after` within `limits`, and the newest seq then.
    struct Ahead: Sendable {
        var after: Int64
        var limits: BatchLimits
        var batches: [[PendingEvent]]
        var mark: Int64
    }

    /// Reads the batches after `after` on another thread, off Swift's pool, where the sending
    /// goes on, beside a commit under way (the outbox reads on connections of their own).
    private func startReading(after: Int64, limits: BatchLimits) -> DiskJob<Ahead, OutboxError> {
        let outbox = outbox
        let service = service
        return Self.beside { () throws(OutboxError) -> Ahead in
            let batches = try outbox.pendingBatches(for: service, limits: limits, after: after, count: Self.readAhead)
            return Ahead(after: after, limits: limits, batches: batches, mark: try outbox.lastSeq())
        }
    }

    /// Delivers `events`, splitting on 413 and bisecting on 400 and on a 5xx the service's health
    /// check does not explain. Nil when every event was delivered or quarantined; otherwise the
    /// result that stopped it (the rest waits for the next try). `failedAlone`: how many times in a
    /// row this single event has failed by itself already.
    /// `deferCommit`: when the service takes the whole of `events` at once, they are handed back in
    /// `delivered` to be committed later, instead of committed here.
    private func send(
        _ events: [PendingEvent], report: inout FlushReport, maxBytes: inout Int,
        deadline: Date?, failedAlone: Int = 0, delivered: inout [PendingEvent], suspects: inout [Suspect],
        deferCommit: Bool = false
    ) async throws(OutboxError) -> DeliveryResult? {
        if let deadline, remaining(until: deadline) < Self.shortestAttempt {
            return .retryLater(reason: "out of time", unreachable: false, after: nil)
        }
        report.attempts += 1
        let timeout = deadline.map { remaining(until: $0) }
        let began = timer.now()
        var result = await transport.deliver(batch: events, timeout: timeout)
        // The batch took all the time that was left and got nothing back: the time ran out while
        // it was on its way, which says nothing of the service (a refusal or a 429 says more).
        if case .retryLater(_, let unreachable, let after) = result, let deadline, let timeout,
            remaining(until: deadline) < Self.shortestAttempt,
            timeout - elapsed(since: began) <= .milliseconds(50)
        {
            result = .retryLater(reason: Self.outOfTime, unreachable: unreachable, after: after)
        }
        switch result {
        case .delivered:
            if deferCommit { delivered = events } else { try outbox.markSent(events, at: timer.now()) }
            report.sent += events.count
            return nil
        case .rejected(let messages):
            if events.count == 1 {
                try outbox.quarantine(
                    events[0], reason: "refused by the service: " + messages.joined(separator: "; "), at: timer.now())
                report.quarantined += 1
                return nil
            }
        case .tooLarge:
            let bytes = events.reduce(BatchLimits.envelopeBytes) { $0 + $1.bytes }
            maxBytes = max(1, min(maxBytes, bytes / 2))
            if events.count == 1 {
                try outbox.quarantine(
                    events[0], reason: "larger than the service accepts (HTTP 413, \(bytes) bytes)", at: timer.now())
                report.quarantined += 1
                return nil
            }
        case .serviceFailed(let status, _, _):
            // A gateway's or an overloaded service's answer says nothing of the events.
            guard Self.mayBeTheEvents(status) else { return result }
            // The service or these events? Only a service that answers other requests meanwhile
            // says it is these events.
            guard await transport.serviceAnswers(timeout: deadline.map { remaining(until: $0) }) else { return result }
            if events.count == 1 {
                guard failedAlone + 1 >= Self.failuresAloneToQuarantine else {
                    // Again by itself, in case the failure was the service's, not the event's.
                    return try await send(
                        events, report: &report, maxBytes: &maxBytes, deadline: deadline,
                        failedAlone: failedAlone + 1, delivered: &delivered, suspects: &suspects)
                }
                // Only a service that takes other events after this one says it is this one: one
                // that fails on every event has a broken endpoint (also one that broke during the
                // flush). Held out of this flush, and set aside at its end if the service took an
                // event since; so many in a row with nothing taken stop the flush.
                suspects.append(Suspect(event: events[0], status: status, sentBefore: report.sent))
                if suspects.count(where: { $0.sentBefore == report.sent }) >= Self.suspectsInARow {
                    return .retryLater(reason: Self.failsOnEverything(status), unreachable: false, after: nil)
                }
                return nil
            }
        case .retryLater, .failed:
            return result
        }
        // Halves in order, so what the service takes is still in the order it happened.
        let middle = events.count / 2
        if let stop = try await send(
            Array(events[..<middle]), report: &report, maxBytes: &maxBytes, deadline: deadline, delivered: &delivered,
            suspects: &suspects)
        {
            return stop
        }
        return try await send(
            Array(events[middle...]), report: &report, maxBytes: &maxBytes, deadline: deadline, delivered: &delivered,
            suspects: &suspects)
    }

    /// An event the service failed on alone, each time, while it answered its health check.
    struct Suspect: Sendable {
        var event: PendingEvent
        var status: Int
        /// Events the flush had delivered when this one was held: set aside only if more were.
        var sentBefore: Int
    }

    /// Events held in a row, nothing delivered since the first, that stop a flush: a broken
    /// endpoint costs about five requests each, and this many covers a walk's events of a tour the
    /// service dropped (more in a row at the head of the outbox wait until fewer are).
    static let suspectsInARow = 32

    static func failsOnEverything(_ status: Int) -> String {
        "the service fails on every event (HTTP \(status)) while it answers other requests"
    }

    private func quarantine(_ suspect: Suspect, report: inout FlushReport) throws(OutboxError) {
        try outbox.quarantine(
            suspect.event,
            reason: "the service fails on it (HTTP \(suspect.status), each time) while it answers other requests;"
                + " it may no longer know the tour, point or account it names",
            at: timer.now())
        report.quarantined += 1
    }

    private func elapsed(since start: Date) -> Duration {
        .milliseconds(Int64(max(0, timer.now().timeIntervalSince(start)) * 1000))
    }

    private func remaining(until deadline: Date) -> Duration {
        .milliseconds(Int64(max(0, deadline.timeIntervalSince(timer.now())) * 1000))
    }
}

import Analytics
import Foundation
import ServiceTestSupport
import Synchronization
import TestSupport
import Testing
import TourAPI
import TourModel

/// The batcher's rules at its seam (a scripted transport, a real SQLite outbox, a recorded clock).
/// Against the real service: CLITests/AnalyticsDeliveryTests.
@Suite struct BatcherTests {
    typealias F = OutboxFixtures

    func batcher(
        _ outbox: Outbox, _ transport: ScriptedBatchTransport, timer: any RetryTimer = RecordedTimer(),
        limits: BatchLimits = BatchLimits()
    ) -> Batcher {
        Batcher(
            outbox: outbox, service: F.service, transport: transport, limits: limits, timer: timer,
            jitter: FixedJitter(value: 0.5))
    }

    func ids(_ batches: [[AnalyticsEvent]]) -> [[Int]] {
        batches.map { $0.map { Int($0.eventID!.suffix(12))! } }
    }

    @Test func everythingGoesOldestFirstInBatchesOf50AndLeavesTheOutbox() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...120)
        let transport = ScriptedBatchTransport { _, _ in .delivered }
        let report = await batcher(outbox, transport).flush(.init())
        #expect(report.outcome == .emptied && report.sent == 120 && report.attempts == 3)
        #expect(ids(transport.sent) == [Array(1...50), Array(51...100), Array(101...120)])
        #expect(try outbox.summary(for: F.service).waiting == 0)
        #expect(try outbox.summary(for: F.service).sentTotal == 120)
    }

    /// `sync --max-time` limits the time spent failing: batches the service takes, however slowly,
    /// do not count against it, while a service that fails mostly still meets it.
    @Test func onlyTheTimeSpentFailingCountsAgainstTheDeadline() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...5)
        let timer = RecordedTimer()
        let slow = ScriptedBatchTransport { _, _ in
            timer.advance(by: 30)
            return .delivered
        }
        let start = timer.now()
        let patience = Batcher.Patience(
            deadline: start + 60, schedule: .onDemand, maxUnreachable: 3, deliveriesDoNotCount: true)
        let report = await batcher(outbox, slow, timer: timer, limits: BatchLimits(maxEvents: 1)).flush(patience)
        #expect(report.outcome == .emptied && report.sent == 5, "\(report)")
        // Counted, the same slow service would have had time for two.
        try F.fill(outbox, 6...10)
        let counted = await batcher(outbox, slow, timer: timer, limits: BatchLimits(maxEvents: 1))
            .flush(.init(deadline: timer.now() + 60, schedule: .onDemand, maxUnreachable: 3))
        #expect(counted.sent == 2, "\(counted)")

        // One batch in three taken, each failure taking 10 s: the failing time in all stays within
        // the deadline (plus at most one wait), whatever the deliveries.
        let fresh = try TemporaryDirectory()
        let busy = try F.outbox(fresh)
        try F.fill(busy, 1...100)
        let clock = RecordedTimer()
        let delivering = Mutex(0.0)
        let mostlyFailing = ScriptedBatchTransport { _, attempt in
            clock.advance(by: 10)
            guard attempt % 3 == 0 else { return .retryLater(reason: "HTTP 503", unreachable: false, after: nil) }
            delivering.withLock { $0 += 10 }
            return .delivered
        }
        let began = clock.now()
        let bounded = await batcher(busy, mostlyFailing, timer: clock, limits: BatchLimits(maxEvents: 1))
            .flush(.init(deadline: began + 60, schedule: .onDemand, maxUnreachable: 3, deliveriesDoNotCount: true))
        #expect(bounded.sent > 0 && bounded.sent < 100, "\(bounded)")
        let failing = clock.now().timeIntervalSince(began) - delivering.withLock { $0 }
        #expect(failing <= 60 + 8, "\(failing) s spent failing")
    }

    /// Only a batch that used up the time left without an answer is "out of time"; one refused
    /// just before the deadline says it was refused.
    @Test func outOfTimeIsSaidOnlyOfABatchThatUsedUpTheTimeLeft() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...1)
        let timer = RecordedTimer()
        let refused = ScriptedBatchTransport { _, _ in
            timer.advance(by: 0.92)
            return .retryLater(reason: "refused", unreachable: true, after: nil)
        }
        let early = await batcher(outbox, refused, timer: timer).flush(.init(deadline: timer.now() + 1))
        #expect(early.outcome == .stopped(reason: "refused", unreachable: true, retryAfter: nil), "\(early)")
        let late = ScriptedBatchTransport { _, _ in
            timer.advance(by: 1)
            return .retryLater(reason: "no answer within 1 s", unreachable: false, after: nil)
        }
        let cut = await batcher(outbox, late, timer: timer).flush(.init(deadline: timer.now() + 1))
        #expect(
            cut.outcome
                == .stopped(reason: "out of time before the service answered", unreachable: false, retryAfter: nil),
            "\(cut)")
    }

    @Test func refusedEventsAreBisectedOutAndQuarantinedWithTheServicesWordsTheRestDeliveredInOrder() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...50)
        let poison: Set<Int> = [7, 31]
        let transport = ScriptedBatchTransport { batch, _ in
            let bad = batch.indices.filter { poison.contains(Int(batch[$0].eventID!.suffix(12))!) }
            return bad.isEmpty
                ? .delivered
                : .rejected(messages: bad.map { "events.\($0).name must be one of the following values: ..." })
        }
        let report = await batcher(outbox, transport).flush(.init())
        #expect(report.sent == 48 && report.quarantined == 2 && report.outcome == .emptied)
        let delivered = ids(
            transport.sent.filter { batch in !batch.contains { poison.contains(Int($0.eventID!.suffix(12))!) } })
        #expect(delivered.flatMap { $0 } == (1...50).filter { !poison.contains($0) })
        // Each poison event costs a bisection, not a batch per event.
        #expect(report.attempts <= 1 + 2 * 2 * 6, "\(report.attempts) attempts")
        let held = try outbox.entries(states: [.quarantined])
        #expect(held.map { Int($0.event.eventID!.suffix(12))! } == [7, 31])
        #expect(
            held.allSatisfy {
                $0.problem == "refused by the service: events.0.name must be one of the following values: ..."
            })
    }

    func number(_ event: AnalyticsEvent) -> Int { Int(event.eventID!.suffix(12))! }

    /// Batches are read ahead, several at a time: what is recorded while they are out still goes in
    /// this flush, after them, in order, and each event once.
    @Test func eventsRecordedWhileTheFlushRunsGoInTheSameFlushInOrder() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...120)
        let transport = ScriptedBatchTransport { _, attempt in
            // While the first batch is out, a walk records ten more; more again later.
            if attempt == 1 { try? F.fill(outbox, 121...130) }
            if attempt == 3 { try? F.fill(outbox, 131...700) }
            return .delivered
        }
        let report = await batcher(outbox, transport).flush(.init())
        #expect(report.outcome == .emptied && report.sent == 700, "\(report)")
        #expect(ids(transport.sent).flatMap { $0 } == Array(1...700))
        #expect(transport.sent.allSatisfy { $0.count <= 50 })
        #expect(try outbox.summary(for: F.service).waiting == 0)
        #expect(try outbox.summary(for: F.service).sentTotal == 700)
    }

    /// Batches taken whole are committed together, once eight of them wait (a commit writes pages
    /// all over the `sent` index, so fewer, larger ones leave the CPU to the sending): a flush of
    /// 20 batches changes the outbox at most twice while it sends, where it used to after nearly
    /// every batch. Nothing leaves the outbox before its 204.
    @Test func batchesTakenWholeAreCommittedEightAtATimeNeverBeforeTheirAnswer() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...1000)
        let seen = Mutex<[Int]>([])
        let transport = AsyncScriptedTransport { _, attempt in
            // The outbox as another process would see it when each batch goes.
            var left = (try? outbox.summary(for: F.service).waiting) ?? -1
            if attempt == 15 {
                // The first eight went to be committed before the 9th: it ends while batches go
                // (waited for on the real clock, without holding a thread).
                let until = Date() + 10
                while left == 1000, Date() < until {
                    try? await Task.sleep(for: .milliseconds(10))
                    left = (try? outbox.summary(for: F.service).waiting) ?? -1
                }
            }
            seen.withLock { $0.append(left) }
            return .delivered
        }
        let report = await Batcher(
            outbox: outbox, service: F.service, transport: transport, timer: RecordedTimer(),
            jitter: FixedJitter(value: 0.5)
        ).flush(.init())
        #expect(report.outcome == .emptied && report.sent == 1000 && report.attempts == 20, "\(report)")
        let waiting = seen.withLock { $0 }
        for (k, left) in waiting.enumerated() {
            #expect(left >= 1000 - 50 * k, "batch \(k + 1) went with \(left) events waiting: one left before its 204")
        }
        #expect(Set(waiting).count <= 3, "the outbox changed more often than once per eight batches: \(waiting)")
        #expect(waiting.count == 20 && waiting[14] == 600, "\(waiting)")
        #expect(try outbox.summary(for: F.service).waiting == 0)
        #expect(try outbox.summary(for: F.service).sentTotal == 1000)
    }

    /// A slow service does not keep what it took uncommitted for eight of its answers: once the
    /// first batch waiting has waited half a second, they are committed.
    @Test func aSlowServicesBatchesAreCommittedOnceTheyHaveWaitedHalfASecond() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...500)
        let timer = RecordedTimer()
        let committedBy5th = Mutex<Int?>(nil)
        let transport = AsyncScriptedTransport { _, attempt in
            if attempt == 5 {
                // The first batches' commit started at the 3rd batch, a second after the first
                // answer; wait for it on the real clock, without holding a thread.
                let until = Date() + 10
                var left = (try? outbox.summary(for: F.service).waiting) ?? -1
                while left == 500, Date() < until {
                    try? await Task.sleep(for: .milliseconds(10))
                    left = (try? outbox.summary(for: F.service).waiting) ?? -1
                }
                committedBy5th.withLock { $0 = left }
            }
            timer.advance(by: 1)
            return .delivered
        }
        let report = await Batcher(
            outbox: outbox, service: F.service, transport: transport, timer: timer, jitter: FixedJitter(value: 0.5)
        ).flush(.init())
        #expect(report.outcome == .emptied && report.sent == 500, "\(report)")
        let left = committedBy5th.withLock { $0 }
        #expect(left.map { $0 < 500 && $0 >= 300 } == true, "\(String(describing: left)) waiting at the 5th batch")
        #expect(try outbox.summary(for: F.service).waiting == 0)
    }

    @Test func aBatchTakenWholeIsCommittedEvenWhenTheNextOneFails() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...120)
        // Two batches go through; the third meets a busy service. The second batch's commit waits
        // for the third to be sent, and must still happen.
        let transport = ScriptedBatchTransport { _, attempt in
            attempt <= 2 ? .delivered : .retryLater(reason: "HTTP 429", unreachable: false, after: nil)
        }
        let report = await batcher(outbox, transport).flush(.init())
        #expect(report.sent == 100 && report.attempts == 3)
        #expect(try outbox.summary(for: F.service).waiting == 20)
        #expect(try outbox.summary(for: F.service).sentTotal == 100)
        #expect(try outbox.pending(for: F.service, limits: BatchLimits()).map(\.seq).first == 101)
        // Each event went once, in order, none twice.
        #expect(ids(transport.sent).flatMap { $0 } == Array(1...100) + Array(101...120))
    }

    @Test func eventsTheServiceFailsOnWhileItAnswersAreSearchedOutAndQuarantinedTheRestDelivered() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...20)
        // Eight events of a tour the service no longer has: it answers 500 for any batch holding one.
        let gone = Set(3...10)
        let transport = ScriptedBatchTransport { batch, _ in
            batch.contains { gone.contains(Int($0.eventID!.suffix(12))!) }
                ? .serviceFailed(status: 500, reason: "HTTP 500", after: nil) : .delivered
        }
        let report = await batcher(outbox, transport).flush(.init())
        #expect(report.sent == 12 && report.quarantined == 8 && report.outcome == .emptied, "\(report)")
        let delivered = transport.sent.filter { !$0.contains { gone.contains(number($0)) } }
        #expect(delivered.flatMap { $0.map(number) } == (1...20).filter { !gone.contains($0) })
        let held = try outbox.entries(states: [.quarantined])
        #expect(held.map { number($0.event) } == Array(gone).sorted())
        #expect(
            held.allSatisfy {
                $0.problem
                    == "the service fails on it (HTTP 500, each time) while it answers other requests;"
                    + " it may no longer know the tour, point or account it names"
            })
        // Each held event was tried alone four times; a bisection, not a batch per event.
        for n in gone { #expect(transport.sent.filter { $0.map(number) == [n] }.count == 4) }
        #expect(report.attempts <= 1 + 2 * 20 + 8 * 3, "\(report.attempts) attempts")
        #expect(try outbox.summary(for: F.service).waiting == 0)
    }

    /// A service whose events endpoint fails on everything while its health check answers: that is
    /// the endpoint, not the events. Nothing is set aside; everything waits and the flush stops
    /// (every event was quarantined as one "the service fails on", and `sync` said all was well).
    /// When the events it fails on come first and the rest then go through, they are set aside
    /// once the others have shown the endpoint works.
    @Test func eventsAreSetAsideOnlyOnceTheServiceHasTakenOthers() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...20)
        let broken = ScriptedBatchTransport { _, _ in .serviceFailed(status: 500, reason: "HTTP 500", after: nil) }
        let report = await batcher(outbox, broken).flush(.init())
        #expect(report.quarantined == 0 && report.sent == 0, "\(report)")
        if case .stopped(_, false, _) = report.outcome {} else { Issue.record("\(report.outcome)") }
        #expect(try outbox.entries(states: [.quarantined]).isEmpty)
        #expect(try outbox.summary(for: F.service).waiting == 20)

        // Events 1...4 name what the service no longer has; 5...20 are fine.
        let transport = ScriptedBatchTransport { [self] batch, _ in
            batch.contains { number($0) <= 4 }
                ? .serviceFailed(status: 500, reason: "HTTP 500", after: nil) : .delivered
        }
        let second = await batcher(outbox, transport).flush(.init())
        #expect(second.sent == 16 && second.quarantined == 4 && second.outcome == .emptied, "\(second)")
        #expect(try outbox.entries(states: [.quarantined]).map { number($0.event) } == [1, 2, 3, 4])
        #expect(try outbox.summary(for: F.service).waiting == 0)
    }

    /// An endpoint that breaks during a flush, after taking a batch: what it fails on after that
    /// says nothing of the events. They wait, and the flush stops after 32 of them held in a row
    /// (every later event was set aside, once one batch had gone through).
    @Test func anEndpointThatBreaksDuringTheFlushSetsNothingAside() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...120)
        let transport = ScriptedBatchTransport { _, attempt in
            attempt == 1 ? .delivered : .serviceFailed(status: 500, reason: "HTTP 500", after: nil)
        }
        let report = await batcher(outbox, transport).flush(.init())
        #expect(report.sent == 50 && report.quarantined == 0, "\(report)")
        if case .stopped(let reason, false, _) = report.outcome {
            #expect(reason == "the service fails on every event (HTTP 500) while it answers other requests")
        } else {
            Issue.record("\(report.outcome)")
        }
        #expect(try outbox.entries(states: [.quarantined]).isEmpty)
        #expect(try outbox.summary(for: F.service).waiting == 70)
        // Bounded: about five requests for each of the 32 held, not the whole outbox bisected.
        #expect(report.attempts <= 1 + 32 * 6, "\(report.attempts) attempts")
    }

    /// A service that fails at random while it answers its health check (the kill test's server
    /// with 30 % faults met this): an event whose bisection reached it alone and that then failed
    /// once more by chance was quarantined for good. Here the first six requests carrying event 7
    /// fail (the batch, the halves down to 7 alone, and 7 alone once more); the seventh goes
    /// through. Nothing may be set aside.
    @Test func anEventThatFailsAloneOnlyByChanceIsNotQuarantined() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...20)
        let carried = Mutex(0)
        let transport = ScriptedBatchTransport { [self] batch, _ in
            guard batch.contains(where: { number($0) == 7 }) else { return .delivered }
            let times = carried.withLock { count in
                count += 1
                return count
            }
            return times <= 6 ? .serviceFailed(status: 500, reason: "HTTP 500", after: nil) : .delivered
        }
        let report = await batcher(outbox, transport).flush(.init())
        #expect(report.quarantined == 0 && report.sent == 20 && report.outcome == .emptied, "\(report)")
        #expect(try outbox.entries(states: [.quarantined]).isEmpty)
        // The service took 1...20 in order (a batch holding 7 went through on its seventh try).
        let accepted = transport.sent.enumerated().filter { index, batch in
            !batch.contains { number($0) == 7 } || index == transport.sent.count - 1
                || transport.sent[(index + 1)...].allSatisfy { !$0.contains { number($0) == 7 } }
        }
        let order: [Int] = accepted.flatMap { $0.element.map(number) }
        #expect(order == Array(1...20), "\(ids(transport.sent))")
    }

    /// A gateway's or an overloaded service's answer (502, 503, 504) says nothing of the events:
    /// a batch that gets one waits whole, however well the health check answers. (A service failing
    /// 30 % of its requests at random with 500, 502 and 503 once set a valid event aside as one it
    /// failed on "each time".)
    @Test func aBatchAGatewayOrAnOverloadedServiceFailsIsNeverSearchedAndWaitsWhole() async throws {
        for status in [502, 503, 504] {
            let home = try TemporaryDirectory()
            let outbox = try F.outbox(home)
            try F.fill(outbox, 1...20)
            let transport = ScriptedBatchTransport { [self] batch, _ in
                batch.contains { number($0) == 7 }
                    ? .serviceFailed(status: status, reason: "HTTP \(status)", after: nil) : .delivered
            }
            let report = await batcher(outbox, transport).flush(.init())
            #expect(report.attempts == 1 && report.quarantined == 0 && transport.healthChecks == 0, "\(report)")
            #expect(report.outcome == .stopped(reason: "HTTP \(status)", unreachable: false, retryAfter: nil))
            #expect(try outbox.summary(for: F.service).waiting == 20)
        }
    }

    /// Sent events are remembered 30 days (an import run again skips them), and forgotten by a
    /// later flush that delivers something.
    @Test func sentEventsAreForgottenThirtyDaysOnByAFlushThatDelivers() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        let timer = RecordedTimer()
        try F.fill(outbox, 1...2)
        let pending = try outbox.pending(for: F.service, limits: BatchLimits())
        try outbox.markSent([pending[0]], at: timer.now() - 31 * 24 * 3600)
        try outbox.markSent([pending[1]], at: timer.now() - 29 * 24 * 3600)
        // Nothing delivered: nothing forgotten.
        let idle = await batcher(outbox, ScriptedBatchTransport { _, _ in .delivered }, timer: timer).flush(.init())
        #expect(idle.sent == 0)
        #expect(try outbox.record([Recording(event: F.event(1), origin: .service(F.service))]) == 0)
        try F.fill(outbox, 3...60)
        let report = await batcher(outbox, ScriptedBatchTransport { _, _ in .delivered }, timer: timer).flush(.init())
        #expect(report.sent == 58 && report.outcome == .emptied, "\(report)")
        #expect(try outbox.record([Recording(event: F.event(1), origin: .service(F.service))]) == 1)
        #expect(try outbox.record([Recording(event: F.event(2), origin: .service(F.service))]) == 0)
    }

    @Test func aFailingServiceWhoseHealthCheckFailsTooIsWaitedOutNotSearched() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...5)
        let transport = ScriptedBatchTransport(healthy: { false }) { _, _ in
            .serviceFailed(status: 500, reason: "HTTP 500", after: .seconds(5))
        }
        let report = await batcher(outbox, transport).flush(.init())
        #expect(report.attempts == 1 && transport.healthChecks == 1 && report.quarantined == 0)
        #expect(report.outcome == .stopped(reason: "HTTP 500", unreachable: false, retryAfter: .seconds(5)))
        #expect(try outbox.summary(for: F.service).waiting == 5)
    }

    @Test func aFailureThatPassesCostsABisectionAndHoldsNothingBack() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...6)
        // Event 4 fails in every batch holding it and the first time alone, then goes through.
        let aloneTries = Tally()
        let flaky = ScriptedBatchTransport { batch, _ in
            let numbers = batch.map { Int($0.eventID!.suffix(12))! }
            guard numbers.contains(4) else { return .delivered }
            if numbers == [4], aloneTries.next() > 1 { return .delivered }
            return .serviceFailed(status: 500, reason: "HTTP 500", after: nil)
        }
        let report = await batcher(outbox, flaky).flush(.init())
        #expect(report.sent == 6 && report.quarantined == 0 && report.outcome == .emptied)
        #expect(try outbox.entries(states: [.quarantined]).isEmpty)
        #expect(aloneTries.count == 2)
    }

    @Test func aBatchTooLargeIsSplitAndTheLimitLoweredForTheRestOfTheFlush() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...40, padding: 2000)
        // A service that takes at most about 30 kB.
        let transport = ScriptedBatchTransport { batch, _ in
            let size = (try? WalkscapeJSON.encode(AnalyticsBatch(events: batch)).count) ?? 0
            return size > 30_000 ? .tooLarge : .delivered
        }
        let report = await batcher(outbox, transport, limits: BatchLimits(maxBytes: 200_000)).flush(.init())
        #expect(report.sent == 40 && report.quarantined == 0)
        #expect(
            ids(transport.sent.filter { (try? WalkscapeJSON.encode(AnalyticsBatch(events: $0)).count) ?? 0 <= 30_000 })
                .flatMap { $0 }
                == Array(1...40))
        // One 413 for the first batch, then halves, then batches made small enough from the start.
        let refused = transport.sent.filter {
            (try? WalkscapeJSON.encode(AnalyticsBatch(events: $0)).count) ?? 0 > 30_000
        }
        #expect(refused.count <= 3, "\(refused.map(\.count))")
    }

    @Test func aSingleEventLargerThanTheServiceTakesIsQuarantined() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...1, padding: 200_000)
        try F.fill(outbox, 2...3)
        let transport = ScriptedBatchTransport { batch, _ in
            batch.contains { $0.properties["note"] != nil } ? .tooLarge : .delivered
        }
        let report = await batcher(outbox, transport).flush(.init())
        #expect(report.sent == 2 && report.quarantined == 1)
        #expect(
            try outbox.entries(states: [.quarantined]).first?.problem?.hasPrefix(
                "larger than the service accepts (HTTP 413") == true)
    }

    @Test func failuresAreWaitedOutWithGrowingCappedPausesAndRetryAfterIsHonouredExactly() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...3)
        let transport = ScriptedBatchTransport { _, attempt in
            switch attempt {
            case 1...5: .retryLater(reason: "HTTP 503", unreachable: false, after: nil)
            case 6: .retryLater(reason: "HTTP 429", unreachable: false, after: .seconds(7))
            default: .delivered
            }
        }
        let timer = RecordedTimer()
        let schedule = SendSchedule(base: .seconds(1), cap: .seconds(4), floor: .milliseconds(10))
        let report = await batcher(outbox, transport, timer: timer)
            .flush(.init(deadline: timer.now() + 3600, schedule: schedule, maxUnreachable: 3))
        #expect(report.sent == 3 && report.outcome == .emptied)
        // Half (the jitter) of 1, 2, 4, 4, 4 s; then the service's 7 s.
        #expect(timer.sleeps == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(2), .seconds(2), .seconds(7)])
        // The same events each time: at least once, same ids.
        #expect(Set(transport.sent.map { $0.map(\.eventID) }).count == 1)
    }

    @Test func withoutPatienceTheFirstFailureStopsTheFlushAndTheEventsWait() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...3)
        let transport = ScriptedBatchTransport { _, _ in .retryLater(reason: "HTTP 500", unreachable: false, after: nil)
        }
        let report = await batcher(outbox, transport).flush(.init())
        #expect(report.attempts == 1 && report.sent == 0)
        #expect(report.outcome == .stopped(reason: "HTTP 500", unreachable: false, retryAfter: nil))
        #expect(try outbox.summary(for: F.service).waiting == 3)
        #expect(try outbox.summary(for: F.service).lastProblem == "HTTP 500")
    }

    @Test func aDeadlineThatAWaitWouldPassEndsTheFlushInsteadOfSleepingThroughIt() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...3)
        let transport = ScriptedBatchTransport { _, _ in
            .retryLater(reason: "busy", unreachable: false, after: .seconds(30))
        }
        let timer = RecordedTimer()
        let report = await batcher(outbox, transport, timer: timer)
            .flush(.init(deadline: timer.now() + 2, schedule: .afterCommand, maxUnreachable: 1))
        #expect(report.attempts == 1 && timer.sleeps.isEmpty)
        #expect(report.outcome == .stopped(reason: "busy", unreachable: false, retryAfter: .seconds(30)))
    }

    @Test func anUnreachableServiceMarksWhatWasRecordedBeforeTheAttemptOffline() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...2, offline: nil)
        let transport = ScriptedBatchTransport { _, attempt in
            attempt <= 3 ? .retryLater(reason: "refused", unreachable: true, after: nil) : .delivered
        }
        let timer = RecordedTimer()
        let patience = Batcher.Patience(deadline: timer.now() + 60, schedule: .onDemand, maxUnreachable: 3)
        let report = await batcher(outbox, transport, timer: timer).flush(patience)
        #expect(report.attempts == 3 && report.reached == false)
        #expect(try outbox.entries().map(\.event.offline) == [true, true])
        try F.fill(outbox, 3...3, offline: nil)
        _ = await batcher(outbox, transport, timer: timer).flush(patience)
        // Sent with what was known: the first two offline, the third reached the service at once.
        #expect(transport.sent.last?.map(\.offline) == [true, true, false])
    }

    /// A service reached answers "not offline" for every event recorded before the attempt, and an
    /// unreachable attempt after it must not turn the events still waiting into "offline".
    @Test func eventsRecordedBeforeAReachedServiceStayOnlineWhenTheNextAttemptFails() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...3, offline: nil)
        let transport = ScriptedBatchTransport { _, attempt in
            attempt == 1 ? .delivered : .retryLater(reason: "refused", unreachable: true, after: nil)
        }
        let timer = RecordedTimer()
        let report = await batcher(outbox, transport, timer: timer, limits: BatchLimits(maxEvents: 1))
            .flush(.init(deadline: timer.now() + 60, schedule: .onDemand, maxUnreachable: 1))
        #expect(report.sent == 1 && report.attempts == 2)
        #expect(try outbox.entries().map(\.event.offline) == [false, false])
    }

    /// What a reached service's answer says is on disk while the flush goes on, not at its end: a
    /// flush killed after its first batch must not leave the events recorded before that attempt
    /// unknown, for a later unreachable attempt to mark offline.
    @Test func aReachedServicesAnswerIsKeptForTheEventsStillWaitingEvenIfTheFlushIsKilled() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...3, offline: nil)
        let seenAtSecond = Mutex<[Bool?]>([])
        let transport = AsyncScriptedTransport { _, attempt in
            guard attempt == 2 else { return .delivered }
            // What another process finds if this one is killed now (the mark is written beside
            // the sending: wait for it, on the real clock).
            let until = Date() + 10
            var seen = (try? outbox.entries(states: [.waiting]))?.map(\.event.offline) ?? []
            while seen.contains(where: { $0 == nil }), Date() < until {
                try? await Task.sleep(for: .milliseconds(10))
                seen = (try? outbox.entries(states: [.waiting]))?.map(\.event.offline) ?? []
            }
            seenAtSecond.withLock { $0 = seen }
            return .retryLater(reason: "HTTP 429", unreachable: false, after: nil)
        }
        let report = await Batcher(
            outbox: outbox, service: F.service, transport: transport, limits: BatchLimits(maxEvents: 1),
            timer: RecordedTimer(), jitter: FixedJitter(value: 0.5)
        ).flush(.init())
        #expect(report.sent == 1, "\(report)")
        // The first may still be waiting for its commit; the others were recorded before the
        // first attempt, which reached the service.
        let seen = seenAtSecond.withLock { $0 }
        #expect(seen.count >= 2 && seen.allSatisfy { $0 == false }, "\(seen)")
        // Another flush finds the service unreachable: the two still waiting stay online, the
        // events recorded since are offline.
        try F.fill(outbox, 4...5, offline: nil)
        let down = ScriptedBatchTransport { _, _ in .retryLater(reason: "refused", unreachable: true, after: nil) }
        _ = await batcher(outbox, down).flush(.init())
        #expect(try outbox.entries().map(\.event.offline) == [false, false, true, true])
    }

    /// A flush that runs out of time before its first attempt made none: it reached nothing, and
    /// says nothing about `offline`.
    @Test func aFlushThatMadeNoAttemptSaysNothingAboutOffline() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...2, offline: nil)
        // Each look at the clock takes 0.1 s: the loop's check still sees 0.15 s left, the
        // attempt's own check 0.05 s, under the 0.1 s an attempt needs to be worth making.
        let timer = SteppingTimer(step: 0.1)
        let transport = ScriptedBatchTransport { _, _ in .delivered }
        let report = await batcher(outbox, transport, timer: timer)
            .flush(.init(deadline: timer.start + 0.25))
        #expect(report.attempts == 0 && transport.sent.isEmpty, "\(report)")
        #expect(report.reached == nil)
        #expect(try outbox.entries().map(\.event.offline) == [nil, nil])
    }

    /// The same when the flush stops for another reason: what was recorded before the attempt that
    /// reached the service and is still waiting is written down as not offline as the flush ends
    /// (a reached answer is only written for the events still there then).
    @Test func eventsRecordedBeforeAReachedServiceAreNotOfflineWhenTheFlushStopsForAnotherReason() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...3, offline: nil)
        let transport = ScriptedBatchTransport { _, attempt in
            attempt == 1 ? .delivered : .retryLater(reason: "HTTP 429", unreachable: false, after: nil)
        }
        let report = await batcher(outbox, transport, limits: BatchLimits(maxEvents: 1)).flush(.init())
        #expect(report.sent == 1 && report.attempts == 2)
        #expect(try outbox.entries().map(\.event.offline) == [false, false])
        // And a later unreachable attempt leaves them so.
        let down = ScriptedBatchTransport { _, _ in .retryLater(reason: "refused", unreachable: true, after: nil) }
        _ = await batcher(outbox, down).flush(.init())
        #expect(try outbox.entries().map(\.event.offline) == [false, false])
    }
}

/// Answers each delivery from an async script (which may wait without holding a thread).
final class AsyncScriptedTransport: BatchTransport, Sendable {
    private let attempts = Mutex(0)
    private let answer: @Sendable ([AnalyticsEvent], Int) async -> DeliveryResult
    init(_ answer: @escaping @Sendable ([AnalyticsEvent], Int) async -> DeliveryResult) { self.answer = answer }
    func serviceAnswers(timeout: Duration?) async -> Bool { true }
    func deliver(_ events: [AnalyticsEvent], timeout: Duration?) async -> DeliveryResult {
        await answer(
            events,
            attempts.withLock {
                $0 += 1; return $0
            })
    }
}

/// A clock that moves on by `step` each time it is read.
final class SteppingTimer: RetryTimer, @unchecked Sendable {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    private let step: TimeInterval
    private let reads = Mutex(0)
    init(step: TimeInterval) { self.step = step }
    func now() -> Date {
        start + Double(
            reads.withLock {
                $0 += 1; return $0
            }) * step
    }
    func sleep(for duration: Duration) async throws {}
}

/// A count shared with a transport's script.
final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    var count: Int { lock.withLock { value } }
    func next() -> Int {
        lock.withLock {
            value += 1
            return value
        }
    }
}

import Analytics
import Foundation
import TestSupport
import Testing
import TourAPI

/// The walk's background sender: when it tries, and when it does not (a scripted transport, the
/// real clock; the waits it could make are many seconds, and `settled()` says when the sender has
/// acted on every nudge, so no test waits on the clock).
@Suite struct BackgroundSenderTests {
    typealias F = OutboxFixtures

    func sender(_ outbox: Outbox, _ transport: ScriptedBatchTransport) -> BackgroundSender {
        BackgroundSender(schedule: SendSchedule(base: .seconds(30), cap: .seconds(60), floor: .seconds(10))) {
            Batcher(outbox: outbox, service: F.service, transport: transport)
        }
    }

    @Test func whileTheServiceCannotBeReachedTourEventsDoNotMakeMoreAttemptsThanTheBackoffAllows() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...2, offline: nil)
        let transport = ScriptedBatchTransport { _, _ in .retryLater(reason: "refused", unreachable: true, after: nil) }
        let sender = sender(outbox, transport)
        #expect(sender.reach == .unknown)
        sender.start()
        for _ in 0..<20 {
            sender.nudge()
            await sender.settled()
        }
        #expect(transport.sent.count == 1)
        #expect(sender.reach == .unreachable)
        // The walk ends: one last try, then the events wait, marked offline.
        let last = await sender.finish(within: .seconds(1))
        #expect(transport.sent.count == 2)
        #expect(last?.outcome == .stopped(reason: "refused", unreachable: true, retryAfter: nil))
        #expect(try outbox.entries().map(\.event.offline) == [true, true])
    }

    @Test func whenTheServiceAnswersEachTourEventIsSentAtOnceAndTheEndSendsNothingMore() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        let transport = ScriptedBatchTransport { _, _ in .delivered }
        let sender = sender(outbox, transport)
        sender.start()
        try F.fill(outbox, 1...1)
        sender.nudge()
        await sender.settled()
        try F.fill(outbox, 2...2)
        sender.nudge()
        await sender.settled()
        #expect(transport.sent.map { $0.map(\.pointID) } == [["p1"], ["p2"]])
        _ = await sender.finish(within: .seconds(1))
        #expect(transport.sent.count == 2)
        #expect(sender.reach == .reachable)
    }

    @Test func aRetryAfterIsNeverCutShortNotEvenByTheWalksEnd() async throws {
        let home = try TemporaryDirectory()
        let outbox = try F.outbox(home)
        try F.fill(outbox, 1...1)
        let transport = ScriptedBatchTransport { _, _ in
            .retryLater(reason: "HTTP 429", unreachable: false, after: .seconds(30))
        }
        let sender = sender(outbox, transport)
        sender.start()
        sender.nudge()
        await sender.settled()
        for _ in 0..<5 { sender.nudge() }
        await sender.settled()
        _ = await sender.finish(within: .seconds(1))
        #expect(transport.sent.count == 1)
        #expect(try outbox.summary(for: F.service).waiting == 1)
    }
}

import Foundation
import GPSD
import Positioning
import TestSupport
import Testing
import TourModel

/// Collects what a source reports, for a test to wait on.
actor EventLog {
    private(set) var events: [(at: ContinuousClock.Instant, event: GPSDEvent)] = []
    func add(_ event: GPSDEvent) { events.append((ContinuousClock.now, event)) }
    var fixes: [Fix] { events.compactMap { if case .fix(let f) = $0.event { f } else { nil } } }
    var states: [GPSDState] { events.compactMap { if case .state(let s) = $0.event { s } else { nil } } }
    func fixes(after instant: ContinuousClock.Instant) -> [(ContinuousClock.Instant, Fix)] {
        events.compactMap { if case .fix(let f) = $0.event, $0.at > instant { ($0.at, f) } else { nil } }
    }
}

/// A source on `gpsd` with its events logged, once gpsd has greeted it.
func listen(to gpsd: GPSDHarness) async -> (log: EventLog, task: Task<Void, Never>) {
    let source = GPSDSource(configuration: GPSDSource.Configuration(host: "127.0.0.1", port: gpsd.port))
    let log = EventLog()
    let task = Task { for await event in source { await log.add(event) } }
    #expect(await eventually(5) { await log.states.contains(.waitingForFix) })
    return (log, task)
}

/// Polls `condition` until it holds or `seconds` pass.
func eventually(_ seconds: Double, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}

/// A walk north from Bologna, one epoch a second from 10:00:00 UTC: GGA, RMC (unless `rmc` is
/// false: a receiver that gives no date), GSA per epoch, at `hdop`, and GST with `gst`'s latitude
/// and longitude sigmas when given.
func walkEpochs(_ range: Range<Int>, hdop: Double = 0.9, gst: (Double, Double)? = nil, rmc: Bool = true) -> [String] {
    var lines: [String] = []
    for i in range {
        let c = Coordinate(latitude: 44.4939, longitude: 11.3426).destination(distance: Double(i) * 1.4, bearing: 20)
        func ddmm(_ v: Double, _ width: Int) -> String {
            let d = Int(v), m = (v - Double(d)) * 60
            return String(format: "%0\(width)d%07.4f", d, m)
        }
        let hhmmss = String(format: "10%02d%02d.00", i / 60, i % 60)
        let lat = ddmm(c.latitude, 2), lon = ddmm(c.longitude, 3)
        let h = String(format: "%.1f", hdop)
        lines.append(sentence("GPGGA,\(hhmmss),\(lat),N,\(lon),E,1,09,\(h),54.0,M,46.9,M,,"))
        if rmc { lines.append(sentence("GPRMC,\(hhmmss),A,\(lat),N,\(lon),E,2.7,20.0,211126,,,A")) }
        lines.append(sentence("GPGSA,A,3,04,05,09,12,24,25,29,31,02,,,,1.6,\(h),1.3"))
        if let (latitude, longitude) = gst {
            lines.append(sentence("GPGST,\(hhmmss),5.0,4.0,3.0,20.0,\(latitude),\(longitude),6.0"))
        }
    }
    return lines
}

/// gpsd reports an epoch when it sees the receiver's reporting cycle end. After (re)opening a
/// device it first has to learn which sentence ends the cycle, so the first two epochs it reads
/// are not reported; and the last epoch of a burst is only reported once the next one starts.
/// Everything in between must come through, exactly as the file parser reads it.
@Suite(.serialized) struct GPSDSourceTests {
    @Test(.enabled(if: GPSDHarness.isAvailable), .timeLimit(.minutes(1)))
    func deliversTheTraceFixesAndReconnectsAfterGpsdRestarts() async throws {
        let gpsd = try GPSDHarness()
        let folder = try TemporaryDirectory()
        let first = walkEpochs(0..<10), second = walkEpochs(10..<26)
        let file = try folder.write("walk.nmea", (first + second).joined(separator: "\r\n") + "\r\n")
        let expected = Array(try TraceFile(url: file).fixes())
        try #require(expected.count == 26)

        // The promise: gpsd is found again within 3 s of its return. The worst case is a retry just
        // missed at the backoff's cap, so the default cap leaves a second for the connection...
        let defaults = GPSDSource.Configuration(host: "127.0.0.1", port: gpsd.port)
        #expect(defaults.maxBackoff + 1 <= 3, "default backoff cap \(defaults.maxBackoff) s")
        // ...and here a quarter of the backoff (0.0625 s doubling to 0.5 s) must find it within its
        // cap and that second.
        var quick = defaults
        quick.initialBackoff /= 4
        quick.maxBackoff /= 4
        let source = GPSDSource(configuration: quick)
        let log = EventLog()
        let task = Task { for await event in source { await log.add(event) } }
        defer { task.cancel() }
        #expect(await eventually(5) { await log.states.contains(.waitingForFix) })

        await gpsd.play(lines: first, groupSize: 3, interval: 0.1)
        #expect(await eventually(5) { await log.fixes.contains { $0.time == expected[8].time } })
        #expect(source.state == .connected)

        gpsd.stop()
        // Well inside the 5 s silence timeout: the closed socket itself says gpsd is gone.
        #expect(await eventually(2) { await log.states.last == .noGPSD })
        #expect(source.state == .noGPSD)
        // Down long enough for the backoff to reach its cap: the worst case for noticing.
        try await Task.sleep(for: .seconds(quick.maxBackoff * 2))
        try gpsd.start()
        let back = ContinuousClock.now
        // The receiver keeps talking (10 epochs a second) while the source finds gpsd again.
        async let receiver: Void = gpsd.play(lines: second, groupSize: 3, interval: 0.1)
        let reconnected = await eventually(quick.maxBackoff + 1) { await !log.fixes(after: back).isEmpty }
        #expect(reconnected, "no fix within \(quick.maxBackoff + 1) s of gpsd's return")
        let firstBack = await log.fixes(after: back).first
        if let (at, _) = firstBack { print("first fix \(at - back) after gpsd's return") }
        await receiver
        #expect(await eventually(3) { await log.fixes.contains { $0.time == expected[24].time } })
        let all = await log.fixes
        print("gpsd gave \(all.count) fixes for \(expected.count) epochs; states \(await log.states.map(\.rawValue))")

        // Every fix gpsd gave is one of the file's, in order, same time, position and mode...
        var j = 0
        for fix in all {
            while j < expected.count, expected[j].time != fix.time { j += 1 }
            guard j < expected.count else {
                Issue.record("gpsd fix at \(fix.time) is not in the file (or out of order)")
                break
            }
            #expect(abs(fix.coordinate.latitude - expected[j].coordinate.latitude) < 1e-8)
            #expect(abs(fix.coordinate.longitude - expected[j].coordinate.longitude) < 1e-8)
            #expect(fix.mode == expected[j].mode)
            #expect(fix.source == .gpsd)
            #expect(fix.horizontalError != nil)
        }
        // ...and none is missing once gpsd has learnt the cycle, nor after the reconnection.
        let times = Set(all.map(\.time))
        let resumed = firstBack.flatMap { first in expected.firstIndex { $0.time == first.1.time } } ?? 10
        for index in Array(2...8) + Array(resumed...24) {
            #expect(times.contains(expected[index].time), "epoch \(index) missing")
        }
        #expect(all.count == Set(all.map(\.time)).count, "a stale report came through twice")
        task.cancel()
    }

    /// A walk judges each fix by the error its preview gives the same sentences: GST's sigmas when
    /// the receiver sends GST, else HDOP × 5 m. gpsd's own figure for a receiver without GST is its
    /// model of HDOP (19 m a unit at 95 %, so 57 m against the preview's 30 m at HDOP 6): such a
    /// receiver had every fix refused as too inaccurate by the walk and accepted by the preview.
    @Test(.enabled(if: GPSDHarness.isAvailable), .timeLimit(.minutes(1)))
    func eachFixHasTheErrorThePreviewGivesTheSameSentences() async throws {
        let gpsd = try GPSDHarness()
        let folder = try TemporaryDirectory()
        let lines = walkEpochs(0..<8, hdop: 6) + walkEpochs(8..<16, hdop: 6, gst: (3, 4))
        // gpsd reports an epoch before its GST: the first epoch with one is judged by HDOP, the
        // rest by the GST before them (the same here).
        let firstWithGST = Date(timeIntervalSince1970: 1_795_255_208)  // 2026-11-21 10:00:08
        // Before gpsd has learnt the receiver's cycle it may report the first epoch on its RMC,
        // before the GSA with its HDOP has come (once in a full run on a busy machine: gpsd's 57 m).
        let first = Date(timeIntervalSince1970: 1_795_255_200)  // 2026-11-21 10:00:00
        let file = try folder.write("walk.nmea", lines.joined(separator: "\r\n") + "\r\n")
        var expected: [Date: Double] = [:]
        for fix in try TraceFile(url: file).fixes() { expected[fix.time] = fix.horizontalError }
        try #require(expected.count == 16)
        let source = GPSDSource(configuration: GPSDSource.Configuration(host: "127.0.0.1", port: gpsd.port))
        let log = EventLog()
        let task = Task { for await event in source { await log.add(event) } }
        defer { task.cancel() }
        #expect(await eventually(5) { await log.states.contains(.waitingForFix) })
        await gpsd.play(lines: lines, groupSize: 1, interval: 0.03)
        let last = try #require(try TraceFile(url: file).fixes().map(\.time).dropLast().last)
        #expect(await eventually(5) { await log.fixes.contains { $0.time >= last } })
        let fixes = await log.fixes
        var plain = 0
        var withGST = 0
        for fix in fixes {
            guard let wanted = expected[fix.time], fix.time != firstWithGST, fix.time != first else { continue }
            #expect(
                fix.horizontalError.map { abs($0 - wanted) < 1e-9 } == true,
                "\(fix.time): \(String(describing: fix.horizontalError)), the preview's \(wanted)")
            if abs(wanted - 30) < 1e-9 { plain += 1 } else if abs(wanted - 5) < 1e-9 { withGST += 1 }
        }
        #expect(plain >= 4 && withGST >= 4, "\(plain) fixes at HDOP alone and \(withGST) with GST compared")
        task.cancel()
    }

    /// A receiver set to send GGA without RMC or ZDA gives gpsd no date, and gpsd's reports then
    /// carry no time: every one was dropped, and the walk said "waiting for a fix" under an open
    /// sky while the preview of the same sentences played the tour. Each fix now has the
    /// receiver's time of day on the machine's date, and the error the preview gives it.
    @Test(.enabled(if: GPSDHarness.isAvailable), .timeLimit(.minutes(1)))
    func aReceiverThatGivesNoDateStillGivesFixes() async throws {
        let gpsd = try GPSDHarness()
        let (log, task) = await listen(to: gpsd)
        defer { task.cancel() }
        await gpsd.play(lines: walkEpochs(0..<12, hdop: 2, rmc: false), groupSize: 1, interval: 0.03)
        let delivered = await eventually(5) { await log.fixes.count >= 6 }
        let (fixes, states) = (await log.fixes, await log.states)
        #expect(delivered, "fixes: \(fixes.count), states: \(states)")
        #expect(states.last == .connected)
        let now = Date()
        var times: [Double] = []
        for fix in fixes {
            // 10:00:00-10:00:11 UTC, on the day that puts it nearest now.
            let secondOfDay = fix.time.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400)
            #expect(secondOfDay >= 36_000 && secondOfDay < 36_012, "\(fix.time)")
            #expect(abs(fix.time.timeIntervalSince(now)) <= 12 * 3600 + 60, "\(fix.time)")
            #expect(fix.horizontalError == HorizontalError.fromHDOP(2))
            times.append(secondOfDay)
        }
        // One a second, each epoch's own time (its position's), none twice.
        #expect(zip(times.dropFirst(), times).allSatisfy { $0 - $1 == 1 }, "\(times)")
        for fix in fixes {
            let i = Int(fix.time.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400)) - 36_000
            let expected = Coordinate(latitude: 44.4939, longitude: 11.3426)
                .destination(distance: Double(i) * 1.4, bearing: 20)
            #expect(fix.coordinate.distance(to: expected) < 0.5, "epoch \(i)")
        }
    }

    /// A receiver that gives no date has each fix out as gpsd reports it: each second one waited
    /// for the report after it, so the last fix before an outage (its point's) came out only when
    /// fixes came back, a minute late.
    @Test(.enabled(if: GPSDHarness.isAvailable), .timeLimit(.minutes(1)))
    func aReceiverThatGivesNoDateHasNoFixHeldBack() async throws {
        let gpsd = try GPSDHarness()
        let (log, task) = await listen(to: gpsd)
        defer { task.cancel() }
        func secondsOfDay() async -> Set<Int> {
            Set(await log.fixes.map { Int($0.time.timeIntervalSince1970.rounded()) % 86_400 - 36_000 })
        }
        // Two bursts of epochs with a silence after each (an outage): every epoch gpsd reported
        // (all but the first two, while it learns the receiver's cycle) is out before it ends.
        for (burst, wanted) in [(0..<9, 2...8), (9..<20, 9...19)] {
            await gpsd.play(lines: walkEpochs(burst, rmc: false), groupSize: 2, interval: 0.1)
            let all = await eventually(2) { await secondsOfDay().isSuperset(of: wanted) }
            let out = await secondsOfDay().sorted()
            #expect(all, "out: \(out), wanted \(wanted)")
        }
    }

    @Test(.enabled(if: GPSDHarness.isAvailable), .timeLimit(.minutes(1)))
    func aSilentReceiverIsWaitingForFixNotNoGpsd() async throws {
        let gpsd = try GPSDHarness()
        let source = GPSDSource(
            configuration: .init(
                host: "127.0.0.1", port: gpsd.port, silenceTimeout: 0.5,
                initialBackoff: 0.1, maxBackoff: 0.5))
        let log = EventLog()
        let task = Task { for await event in source { await log.add(event) } }
        defer { task.cancel() }
        #expect(await eventually(5) { await log.states.contains(.waitingForFix) })
        await gpsd.play(lines: walkEpochs(0..<6), groupSize: 3, interval: 0.1)
        #expect(await eventually(5) { await log.states.last == .connected })
        // The receiver stops talking; gpsd is fine. After the silence the source replaces its
        // socket, gpsd greets the new one, and the state is "waiting for a fix".
        // The silence counts from the last message gpsd sent, which came no earlier than the last
        // fix the source passed on (the moment the test saw "connected" may be later: it polls).
        #expect(await eventually(4) { await log.states.last == .waitingForFix })
        let events = await log.events
        let lastFix = events.last(where: { if case .fix = $0.event { true } else { false } })?.at
        let change = events.last(where: { $0.event == .state(.waitingForFix) })?.at
        #expect(lastFix != nil && change != nil)
        if let lastFix, let change {
            #expect(change - lastFix >= .milliseconds(450), "the silence was \(change - lastFix)")
        }
        // Two silences more: still gpsd is there, and no fix.
        try await Task.sleep(for: .seconds(1))
        let states = await log.states
        #expect(!states.contains(.noGPSD), "states: \(states)")
        #expect(states.last == .waitingForFix)
    }

    @Test(.enabled(if: GPSDHarness.isAvailable), .timeLimit(.minutes(1)))
    func aWedgedGpsdIsNoGpsdUntilItAnswersAgain() async throws {
        let gpsd = try GPSDHarness()
        let source = GPSDSource(
            configuration: .init(
                host: "127.0.0.1", port: gpsd.port, silenceTimeout: 0.5,
                initialBackoff: 0.1, maxBackoff: 0.5))
        let log = EventLog()
        let task = Task { for await event in source { await log.add(event) } }
        defer { task.cancel() }
        #expect(await eventually(5) { await log.states.contains(.waitingForFix) })
        // SIGSTOP: the kernel still accepts connections on gpsd's port, but nobody answers.
        gpsd.pause()
        #expect(await eventually(5) { await log.states.last == .noGPSD })
        #expect(source.state == .noGPSD)
        gpsd.resume()
        #expect(await eventually(4) { await log.states.last == .waitingForFix })
        await gpsd.play(lines: walkEpochs(0..<6), groupSize: 3, interval: 0.1)
        #expect(await eventually(5) { await !log.fixes.isEmpty })
    }

    @Test(.timeLimit(.minutes(1)))
    func reportsNoGpsdWhenNothingListens() async throws {
        let port = try GPSDHarness.freePort()
        let source = GPSDSource(
            configuration: .init(host: "127.0.0.1", port: port, initialBackoff: 0.05, maxBackoff: 0.2))
        var iterator = source.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first == .state(.noGPSD))
        #expect(source.state == .noGPSD)
    }
}

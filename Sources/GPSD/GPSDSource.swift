import CGPS
import Foundation
import Positioning
import Synchronization
import TourModel

/// Fixes from gpsd through libgps, for the live walk.
///
/// gpsd restarts (package upgrades, a receiver unplugged and replugged, a crash), and a client
/// that does not notice keeps a dead socket forever; so does one behind a gpsd that stopped
/// talking. This source treats a read error or a closed socket as gpsd gone, and
/// `silenceTimeout` without any report as a dead socket: it reconnects, at once after a silence,
/// else with a capped exponential backoff, and reports its state on the way (`noGPSD` /
/// `waitingForFix` / `connected`). A connection counts as gpsd only once gpsd greets it (its
/// VERSION report), so a stopped gpsd whose port still accepts connections is `noGPSD`, while a
/// live gpsd with a silent receiver is `waitingForFix`.
///
/// libgps blocks, so each iteration runs it on a dedicated thread (never the cooperative pool);
/// ending the iteration (or cancelling the consuming task) stops and joins that thread's work
/// within one `pollInterval`.
///
/// A TPV becomes a `Fix` only when its `set` mask has `LATLON_SET`, its mode is 2D or better, and
/// its time differs from the last fix delivered: libgps keeps old values in `gps_data_t` across
/// reports, and a stale field is never a new fix. A TPV without `TIME_SET` (gpsd knows no date)
/// has the receiver's time of day from its sentences, on the receiver's last date or the
/// machine's (`Undated`).
public final class GPSDSource: AsyncSequence, Sendable {
    public typealias Element = GPSDEvent

    public struct Configuration: Sendable, Hashable {
        public var host: String
        public var port: Int
        /// Seconds without any report from gpsd (TPV, SKY, anything) after which the socket is
        /// taken as dead and replaced. gpsd sends at least one report per receiver cycle, so a
        /// 1 Hz receiver is silent this long only if gpsd, the link or the receiver died; and a
        /// new client is greeted at once, so a fresh connection also tells which.
        public var silenceTimeout: Double
        /// First retry delay; doubled after each failure up to `maxBackoff`.
        public var initialBackoff: Double
        /// The longest wait between reconnection attempts: bounds how late we notice gpsd's return.
        public var maxBackoff: Double
        /// How long one blocking wait on the socket lasts before checking for cancellation.
        public var pollInterval: Double

        public init(
            host: String = "127.0.0.1", port: Int = 2947, silenceTimeout: Double = 5,
            initialBackoff: Double = 0.25, maxBackoff: Double = 2, pollInterval: Double = 0.5
        ) {
            self.host = host
            self.port = port
            self.silenceTimeout = silenceTimeout
            self.initialBackoff = initialBackoff
            self.maxBackoff = maxBackoff
            self.pollInterval = pollInterval
        }
    }

    public let configuration: Configuration
    private let currentState = Mutex(GPSDState.noGPSD)

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// The latest state any iteration reported (for a status line that polls).
    public var state: GPSDState { currentState.withLock { $0 } }

    /// Only the fixes, for consumers that do not show the state.
    public var fixes: AsyncCompactMapSequence<GPSDSource, Fix> {
        compactMap { event in
            if case .fix(let fix) = event { return fix }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncStream<GPSDEvent>.Iterator {
        let (stream, continuation) = AsyncStream<GPSDEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let stop = StopFlag()
        continuation.onTermination = { _ in stop.set() }
        let worker = Worker(
            configuration: configuration, continuation: continuation, stop: stop,
            publish: { state in self.currentState.withLock { $0 = state } })
        let thread = Thread { worker.run() }
        thread.name = "walkscape.gpsd"
        thread.start()
        return stream.makeAsyncIterator()
    }
}

/// The libgps loop; lives on its own thread.
private final class Worker: Sendable {
    let configuration: GPSDSource.Configuration
    let continuation: AsyncStream<GPSDEvent>.Continuation
    let stop: StopFlag
    let publish: @Sendable (GPSDState) -> Void

    init(
        configuration: GPSDSource.Configuration, continuation: AsyncStream<GPSDEvent>.Continuation,
        stop: StopFlag, publish: @escaping @Sendable (GPSDState) -> Void
    ) {
        self.configuration = configuration
        self.continuation = continuation
        self.stop = stop
        self.publish = publish
    }

    func run() {
        var state: GPSDState?
        func report(_ new: GPSDState) {
            guard new != state else { return }
            state = new
            publish(new)
            continuation.yield(.state(new))
        }
        var lastFixTime: Date?
        // The receiver's times of the last two fixes: one reporting every 10 s is silent that
        // long between fixes, which is no sign of a dead socket (`silenceTimeout`).
        var fixTimes: (previous: Date?, last: Date?) = (nil, nil)
        func deliver(_ fix: Fix) {
            guard fix.time != lastFixTime else { return }
            lastFixTime = fix.time
            fixTimes = (fixTimes.last, fix.time)
            report(.connected)
            continuation.yield(.fix(fix))
        }
        // The date of the last fix that had one (the receiver's calendar), and the first fix
        // without one while there has been none.
        var lastDated: Date?
        var heldUndated: (fix: Undated, since: ContinuousClock.Instant)?
        // Two undated fixes in a row before any dated one: the receiver gives no date, and its
        // fixes go out at once on the machine's date (each held for the next report, one that
        // came before an outage played its point when fixes came back, a minute late).
        var dateless = false
        func dated(_ fix: Fix, at date: Date) {
            lastDated = date
            if let held = heldUndated.take() { deliver(held.fix.dated(near: date)) }
            deliver(fix)
        }
        func undated(_ fix: Undated) {
            if let lastDated {
                deliver(fix.dated(near: lastDated))
            } else if dateless {
                deliver(fix.dated(near: Date()))
            } else if let held = heldUndated.take() {
                dateless = true
                deliver(held.fix.dated(near: Date()))
                deliver(fix.dated(near: Date()))
            } else {
                heldUndated = (fix, ContinuousClock.now)
            }
        }
        // The receiver's sentences as gpsd passes them on, made into epochs exactly as `preview`
        // makes a recording of them: an NMEA receiver's fixes (`Self.fix(from:)` has why). Kept
        // across reconnections: the receiver's stream goes on.
        var epochs = LiveEpochs()
        // gpsd's device is in its native, binary mode (a u-blox speaking UBX, which gpsd puts it
        // in unless run with -b): the NMEA gpsd passes on is then its own, made from its reports
        // (its GGA says 0 satellites without a satellite message, and has no HDOP), and the fixes
        // are gpsd's reports.
        var binary = false
        func epochFix(_ fix: Fix?) {
            guard var fix else { return }
            fix.source = .gpsd
            if NMEAParser.isUndated(fix.time) {
                let ms = fix.time.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400) * 1000
                undated(Undated(fix: fix, timeOfDay: Int(ms.rounded())))
            } else {
                dated(fix, at: fix.time)
            }
        }
        var backoff = configuration.initialBackoff
        let pollMicros = Int32(max(0.01, configuration.pollInterval) * 1_000_000)
        while !stop.isSet {
            var data = gps_data_t()
            guard gps_open(configuration.host, String(configuration.port), &data) == 0 else {
                report(.noGPSD)
                sleep(seconds: backoff)
                backoff = min(configuration.maxBackoff, backoff * 2)
                continue
            }
            guard ws_gps_watch_json(&data) == 0 else {
                gps_close(&data)
                report(.noGPSD)
                sleep(seconds: backoff)
                backoff = min(configuration.maxBackoff, backoff * 2)
                continue
            }
            // gpsd greets every client with a VERSION report; until it has, this is not a
            // working gpsd (a stopped or wedged one still has the kernel accept connections).
            var greeted = false
            var silent = false
            var message = [CChar](repeating: 0, count: Self.messageBytes)
            var lastReport = ContinuousClock.now
            session: while !stop.isSet {
                // No fix after one held: out it goes, on the machine's date.
                if let held = heldUndated, ContinuousClock.now - held.since > Self.longestHold {
                    heldUndated = nil
                    deliver(held.fix.dated(near: Date()))
                }
                // The receiver has said all it had to say of its epoch: the fix is the epoch's.
                let interval = Self.interval(fixTimes)
                epochFix(epochs.endIfDue(at: .now, fixInterval: interval))
                var wait = pollMicros
                if let left = epochs.untilEnd(at: .now, fixInterval: interval) {
                    wait = min(wait, max(1000, Int32(left.inSeconds * 1_000_000)))
                }
                if !gps_waiting(&data, wait) {
                    if ContinuousClock.now - lastReport > silenceTimeout(fixTimes) {
                        silent = true
                        break session
                    }
                    continue
                }
                // -1: error or gpsd closed the socket; 0: no whole message yet (`message` still
                // holds the last one, which must not be read twice).
                let got = gps_read(&data, &message, Int32(message.count))
                guard got >= 0 else { break session }
                if got == 0 { continue }
                lastReport = ContinuousClock.now
                if !greeted {
                    greeted = true
                    backoff = configuration.initialBackoff
                    report(.waitingForFix)
                }
                if message[0] == CChar(UInt8(ascii: "$")) {
                    if binary { continue }
                    let length = message.firstIndex(of: 0) ?? message.count
                    let fix = message.withUnsafeBytes { bytes in
                        epochs.sentence(
                            UnsafeBufferPointer(rebasing: bytes.bindMemory(to: UInt8.self)[..<length]), at: .now)
                    }
                    epochFix(fix)
                    continue
                }
                let set = data.set
                if set & WS_DEVICE_SET != 0 {
                    binary = data.dev.driver_mode == 1
                } else if set & WS_DEVICELIST_SET != 0, data.devices.ndevices > 0 {
                    binary = data.devices.list.0.driver_mode == 1
                }
                if set & WS_MODE_SET != 0, data.fix.mode < 2 {
                    report(.waitingForFix)
                    continue
                }
                // A receiver whose sentences gpsd passes on has its fixes from them (above);
                // gpsd's reports make the fixes of one that sends none (a binary protocol).
                if !binary, epochs.heardSentence(within: Self.sentencesLapse, of: .now) { continue }
                guard set & WS_LATLON_SET != 0, data.fix.mode >= 2,
                    data.fix.latitude.isFinite, data.fix.longitude.isFinite
                else { continue }
                // A report without a time is gpsd knowing no date: the fix is the receiver's all
                // the same, on the receiver's last date if it gave one. Before any date the first
                // such fix waits for the next report: a date then dates it too, another report
                // without one says the receiver gives none, and the machine's clock dates them.
                if set & WS_TIME_SET != 0 {
                    let fix = Self.fix(from: data)
                    dated(fix, at: fix.time)
                } else {
                    undated(Undated(fix: Self.fix(from: data), timeOfDay: nil))
                }
            }
            gps_close(&data)
            // An epoch whose sentences all came before the socket went: its fix now, not after the
            // next connection.
            epochFix(epochs.end())
            guard !stop.isSet else { break }
            if greeted, silent {
                // gpsd talked, then went quiet: most likely the receiver stopped, but a dead
                // socket looks the same. A fresh connection tells them apart (a live gpsd greets
                // it at once), so reconnect now; meanwhile there is no fix.
                report(.waitingForFix)
                continue
            }
            // Closed, failed, or never greeted us: gpsd is gone or wedged.
            report(.noGPSD)
            if !greeted {
                sleep(seconds: backoff)
                backoff = min(configuration.maxBackoff, backoff * 2)
            }
        }
        continuation.finish()
    }

    /// How long without any report from gpsd means a dead socket: `silenceTimeout`, or for a
    /// receiver that reports less often (a fix every 10 s, to save power) twice the time between
    /// its last two fixes (by its own clock: when they reached us varies with the machine's
    /// load), up to `longestSilence`. Replaced every 5 s, such a walk said "waiting for a fix"
    /// between every two fixes.
    private func silenceTimeout(_ fixes: (previous: Date?, last: Date?)) -> Duration {
        let configured = Duration.seconds(configuration.silenceTimeout)
        guard let interval = Self.interval(fixes) else { return configured }
        return max(configured, .seconds(min(Self.longestSilence.inSeconds, interval * 2)))
    }

    static let longestSilence = Duration.seconds(30)

    /// Seconds between the receiver's last two fixes, by its clock; nil before two.
    static func interval(_ fixes: (previous: Date?, last: Date?)) -> Double? {
        guard let previous = fixes.previous, let last = fixes.last else { return nil }
        return max(0, last.timeIntervalSince(previous))
    }

    /// How long after the last sentence gpsd's own reports make the fixes again (a receiver
    /// changed to a binary protocol).
    static let sentencesLapse = Duration.seconds(30)

    /// How long the first undated fix waits for the report after it (a receiver's next epoch,
    /// which says whether it gives a date): a second with no report, and it goes out as it is.
    static let longestHold = Duration.seconds(1.5)

    /// The longest line gpsd sends that is read whole (its JSON reports and NMEA sentences are far
    /// shorter; a longer one is cut, and a cut sentence fails its checksum).
    static let messageBytes = 4096

    /// A fix from gpsd's report, for a receiver whose sentences gpsd does not pass on (a binary
    /// protocol), with gpsd's own error figures. An NMEA receiver's fixes are made from its
    /// sentences, by the parser `preview` reads a recording of them with: gpsd reports an epoch
    /// before its GST (the walk judged each fix by the last epoch's: a multipath fix's 59 m refused
    /// the good fix after it as too inaccurate, and a point the preview played by GPS was caught
    /// up 55 s late), reports epochs the sentences say have no fix (RMC status V, GGA quality 0, 6
    /// or 8, FAA mode N: positions the preview refuses, played from in the walk a minute before
    /// the preview), and gives an error from the satellites' geometry where the sentences give
    /// none (every fix 78 m and refused, where the preview played both points); and its first
    /// report of a receiver comes after the first RMC, before the GGA with its HDOP.
    static func fix(from data: gps_data_t) -> Fix {
        let f = data.fix
        let set = data.set
        func finite(_ v: Double) -> Double? { v.isFinite ? v : nil }
        let hdop = set & WS_DOP_SET != 0 ? finite(data.dop.hdop) : nil
        return Fix(
            time: date(f.time),
            coordinate: Coordinate(latitude: f.latitude, longitude: f.longitude),
            mode: f.mode >= 3 ? .threeD : .twoD,
            horizontalError: HorizontalError.fromGPSD(epx: f.epx, epy: f.epy, eph: f.eph, hdop: hdop ?? .nan),
            altitude: f.mode >= 3 ? finite(f.altMSL) ?? finite(f.altHAE) : nil,
            speed: finite(f.speed), track: finite(f.track),
            satellites: data.satellites_used > 0 ? Int(data.satellites_used) : nil,
            hdop: hdop, source: .gpsd)
    }

    static func date(_ time: timespec) -> Date {
        Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
    }

    /// A fix from a report gpsd sent without a time, as it does when it knows no date (a receiver
    /// sending GGA without RMC or ZDA; such reports were all dropped, and the walk waited for a
    /// fix under an open sky while its preview of the same sentences played), and the receiver's
    /// time of day from its sentences (milliseconds since midnight UTC).
    struct Undated {
        var fix: Fix
        var timeOfDay: Int?

        /// The fix at its time of day on the UTC date that puts it nearest `reference` (the
        /// receiver's last dated fix, else the machine's clock), so a walk across midnight goes on
        /// into the next day; without a time of day, at `reference`.
        func dated(near reference: Date) -> Fix {
            var fix = fix
            fix.time =
                timeOfDay.map { NMEAParser.redate(Date(timeIntervalSince1970: Double($0) / 1000), near: reference) }
                ?? reference
            return fix
        }
    }

    /// Sleeps in short slices so a stop request is honoured promptly.
    private func sleep(seconds: Double) {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !stop.isSet, ContinuousClock.now < deadline {
            let remaining = deadline - ContinuousClock.now
            Thread.sleep(forTimeInterval: min(0.25, remaining.inSeconds))
        }
    }
}

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
        func deliver(_ fix: Fix) {
            guard fix.time != lastFixTime else { return }
            lastFixTime = fix.time
            report(.connected)
            continuation.yield(.fix(fix))
        }
        // The time of the last report that had one (gpsd knew the receiver's date), and the first
        // fix without one while there has been none.
        var lastDated: timespec?
        var heldUndated: (fix: Undated, since: ContinuousClock.Instant)?
        // Two undated fixes in a row before any dated one: the receiver gives no date, and its
        // fixes go out at once on the machine's date (each held for the next report, one that
        // came before an outage played its point when fixes came back, a minute late).
        var dateless = false
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
            // The receiver's sentences, read as a recorded trace is, for each fix's accuracy.
            var sentences = NMEAParser()
            var message = [CChar](repeating: 0, count: Self.messageBytes)
            var lastReport = ContinuousClock.now
            session: while !stop.isSet {
                // No fix after one held: out it goes, on the machine's date.
                if let held = heldUndated, ContinuousClock.now - held.since > Self.longestHold {
                    heldUndated = nil
                    deliver(held.fix.dated(near: Date()))
                }
                if !gps_waiting(&data, pollMicros) {
                    if ContinuousClock.now - lastReport > .seconds(configuration.silenceTimeout) {
                        silent = true
                        break session
                    }
                    continue
                }
                // -1: error or gpsd closed the socket.
                guard gps_read(&data, &message, Int32(message.count)) >= 0 else { break session }
                lastReport = ContinuousClock.now
                if !greeted {
                    greeted = true
                    backoff = configuration.initialBackoff
                    report(.waitingForFix)
                }
                if message[0] == CChar(UInt8(ascii: "$")) {
                    let length = message.firstIndex(of: 0) ?? message.count
                    _ = message.withUnsafeBytes { bytes in
                        sentences.parse(
                            line: UnsafeBufferPointer(rebasing: bytes.bindMemory(to: UInt8.self)[..<length]))
                    }
                    continue
                }
                let set = data.set
                if set & WS_MODE_SET != 0, data.fix.mode < 2 {
                    report(.waitingForFix)
                    continue
                }
                guard set & WS_LATLON_SET != 0, data.fix.mode >= 2,
                    data.fix.latitude.isFinite, data.fix.longitude.isFinite
                else { continue }
                // A report without a time is gpsd knowing no date (a receiver sending GGA without
                // RMC or ZDA, or one gpsd has only just opened): the fix is the receiver's all the
                // same, on the receiver's last date if it gave one. Before any date the first such
                // fix waits for the next report: a date then dates it too (a receiver that gives
                // one, its first epoch reported before its RMC), another report without one
                // says the receiver gives none, and the machine's clock dates them.
                if set & WS_TIME_SET != 0 {
                    let t = data.fix.time
                    lastDated = t
                    if let held = heldUndated.take() { deliver(held.fix.dated(near: Self.date(t))) }
                    let timeOfDay = (Int(t.tv_sec) % 86_400) * 1000 + Int(t.tv_nsec) / 1_000_000
                    deliver(Self.fix(from: data, timeOfDay: timeOfDay, sentences: sentences))
                    continue
                }
                let timeOfDay = sentences.timeOfDay(atLatitude: data.fix.latitude, longitude: data.fix.longitude)
                let undated = Undated(
                    fix: Self.fix(from: data, timeOfDay: timeOfDay, sentences: sentences), timeOfDay: timeOfDay)
                if let lastDated {
                    deliver(undated.dated(near: Self.date(lastDated)))
                } else if dateless {
                    deliver(undated.dated(near: Date()))
                } else if let held = heldUndated.take() {
                    dateless = true
                    deliver(held.fix.dated(near: Date()))
                    deliver(undated.dated(near: Date()))
                } else {
                    heldUndated = (undated, ContinuousClock.now)
                }
            }
            gps_close(&data)
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

    /// How long the first undated fix waits for the report after it (a receiver's next epoch,
    /// which says whether it gives a date): a second with no report, and it goes out as it is.
    static let longestHold = Duration.seconds(1.5)

    /// The longest line gpsd sends that is read whole (its JSON reports and NMEA sentences are far
    /// shorter; a longer one is cut, and a cut sentence fails its checksum).
    static let messageBytes = 4096

    /// A fix from gpsd's report. Its horizontal error is the one the preview gives the same
    /// receiver's recorded sentences (`sentences`: the NMEA gpsd passes on, read up to now), so that a walk and its preview judge every fix alike: gpsd's own
    /// figures for an NMEA receiver without GST are its model of HDOP (about 19 m per unit, 95 %),
    /// not the 5 m per unit the preview uses, and a receiver at HDOP 6 had every fix refused by the
    /// walk and accepted by the preview. gpsd's figures stand where no sentence gives one.
    /// `timeOfDay` (milliseconds since midnight UTC): the report's own time's, or for a report
    /// without one the time of day its sentences gave (`Undated` then dates the fix).
    static func fix(from data: gps_data_t, timeOfDay: Int?, sentences: NMEAParser = NMEAParser()) -> Fix {
        let f = data.fix
        let set = data.set
        func finite(_ v: Double) -> Double? { v.isFinite ? v : nil }
        let hdop = set & WS_DOP_SET != 0 ? finite(data.dop.hdop) : nil
        let fromSentences = timeOfDay.flatMap { sentences.horizontalError(atTimeOfDay: $0) }
        return Fix(
            time: date(f.time),
            coordinate: Coordinate(latitude: f.latitude, longitude: f.longitude),
            mode: f.mode >= 3 ? .threeD : .twoD,
            horizontalError: fromSentences
                ?? HorizontalError.fromGPSD(epx: f.epx, epy: f.epy, eph: f.eph, hdop: hdop ?? .nan),
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
            Thread.sleep(
                forTimeInterval: min(
                    0.25, Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18))
        }
    }
}

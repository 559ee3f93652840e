import Foundation
import Positioning
import TourModel

/// An NMEA receiver's epochs, from its sentences as gpsd passes them on, ended where `preview`
/// ends a recording's: a pure value (the clock is given), so the walk makes of a receiver's
/// sentences the fixes its preview makes of a recording of them.
///
/// An epoch ends when the next one begins (the parser says so), or once the receiver has been
/// quiet `quiet` after its last sentence (it sends an epoch's sentences in one burst; the next
/// epoch would end it only a fix interval later). Two kinds of receiver are learnt as they talk:
/// one that pauses within an epoch (a GST 0.4 s after the rest: a sentence of an epoch already
/// ended) has its pauses waited for, up to `longestPause`; one whose bursts begin with an untimed
/// sentence (GSA or VTG first, which a recording's reading gives to the epoch before, still open)
/// has its epochs end at the next timed sentence, as a recording's do, or after an outage.
struct LiveEpochs {
    private var parser = NMEAParser()
    private var lastSentence: ContinuousClock.Instant?
    private var open = false
    private var quiet = Self.epochEnd
    private var leadsUntimed = false
    /// The epoch last ended by quiet: its time of day, and when its last sentence came.
    private var ended: (timeOfDay: Int, lastSentence: ContinuousClock.Instant)?

    /// Quiet after an epoch's last sentence that ends it: a sentence takes at most 0.17 s at 4800
    /// baud, and a receiver reporting every 10 s would have its epoch end 10 s late otherwise.
    static let epochEnd = Duration.milliseconds(300)
    /// The longest pause within an epoch waited for, once a receiver has shown one.
    static let longestPause = Duration.seconds(2)
    /// The longest wait for an epoch whose receiver begins its epochs untimed (an outage).
    static let longestOutageWait = Duration.seconds(30)

    /// One sentence (a line gpsd passed on), at `now`: the fix of the epoch it ended, if any.
    mutating func sentence(_ line: UnsafeBufferPointer<UInt8>, at now: ContinuousClock.Instant) -> Fix? {
        let burstBegins = lastSentence.map { now - $0 >= Self.epochEnd } ?? true
        let before = parser.epochTimeOfDay
        let fix = parser.parse(line: line)
        // A burst that begins with a sentence of no new instant: an untimed one.
        if burstBegins { leadsUntimed = parser.epochTimeOfDay == before }
        // A sentence of an epoch already ended: its pauses are longer than waited for.
        if let late = ended, parser.epochTimeOfDay == late.timeOfDay {
            quiet = min(Self.longestPause, max(quiet, now - late.lastSentence + Self.epochEnd))
            ended = nil
        }
        lastSentence = now
        open = true
        return fix
    }

    /// How long after the open epoch's last sentence it ends by quiet; nil when none is open.
    /// `fixInterval`: the receiver's seconds between its last two fixes, if known.
    func pause(fixInterval: Double?) -> Duration? {
        guard open else { return nil }
        guard leadsUntimed else { return quiet }
        // Waiting for the next epoch, as a recording is read, but not through an outage: half a
        // fix interval more than it would (2 s before the interval is known).
        let outage = fixInterval.map { Duration.seconds(min(Self.longestOutageWait.inSeconds, $0 * 1.5)) }
        return max(quiet, outage ?? .seconds(2))
    }

    /// How long from `now` until the open epoch ends by quiet (zero when due); nil when none is open.
    func untilEnd(at now: ContinuousClock.Instant, fixInterval: Double?) -> Duration? {
        guard let pause = pause(fixInterval: fixInterval), let last = lastSentence else { return nil }
        return max(.zero, pause - (now - last))
    }

    /// Ends the open epoch if it is due at `now`: its fix, if it had a position.
    mutating func endIfDue(at now: ContinuousClock.Instant, fixInterval: Double?) -> Fix? {
        guard untilEnd(at: now, fixInterval: fixInterval) == .zero else { return nil }
        return end()
    }

    /// Ends the open epoch now (its sentences all came before gpsd's socket went).
    mutating func end() -> Fix? {
        guard open else { return nil }
        open = false
        if let tod = parser.epochTimeOfDay, let last = lastSentence { ended = (tod, last) }
        return parser.finish()
    }

    /// Whether a sentence came within `lapse` before `now`.
    func heardSentence(within lapse: Duration, of now: ContinuousClock.Instant) -> Bool {
        lastSentence.map { now - $0 < lapse } ?? false
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

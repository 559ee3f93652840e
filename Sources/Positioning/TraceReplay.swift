import Foundation

/// Plays a recorded trace as a live source would deliver it: for `preview` with sound (real
/// time, or `--speed N` faster) and for `preview --fast` (no waiting at all).
///
/// Fixes keep the trace's own timestamps; only their delivery is paced. The pace follows the
/// trace's clock from the first fix, so a gap in the recording is a gap in the replay. A
/// timestamp that goes backwards is delivered at once (the fix filter will judge it). The clock
/// is passed in, so tests drive pacing in virtual time.
public struct TraceReplay<C: Clock>: AsyncSequence, Sendable where C.Duration == Duration {
    public typealias Element = Fix

    public enum Pace: Sendable, Hashable {
        /// One trace second per clock second.
        case realTime
        /// `factor` trace seconds per clock second (`--speed 8`).
        case speed(Double)
        /// No waiting (`--fast`).
        case asFastAsPossible

        /// Trace seconds per clock second; nil for no pacing.
        var factor: Double? {
            switch self {
            case .realTime: 1
            case .speed(let f): f > 0 && f.isFinite ? f : nil
            case .asFastAsPossible: nil
            }
        }
    }

    public let file: TraceFile
    public let pace: Pace
    public let clock: C

    public init(file: TraceFile, pace: Pace, clock: C) {
        self.file = file
        self.pace = pace
        self.clock = clock
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(fixes: file.fixes().makeIterator(), factor: pace.factor, clock: clock)
    }

    public struct Iterator: AsyncIteratorProtocol {
        private var fixes: TraceFixes.Iterator
        private let factor: Double?
        private let clock: C
        private var origin: (instant: C.Instant, time: Date)?

        init(fixes: TraceFixes.Iterator, factor: Double?, clock: C) {
            self.fixes = fixes
            self.factor = factor
            self.clock = clock
        }

        /// The parse counters so far (complete once `next()` has returned nil).
        public var statistics: TraceStatistics { fixes.statistics }

        public mutating func next() async -> Fix? {
            guard let fix = fixes.next() else { return nil }
            guard let factor else { return fix }
            guard let origin else {
                origin = (clock.now, fix.time)
                return fix
            }
            let deadline = origin.instant.advanced(by: .seconds(fix.time.timeIntervalSince(origin.time) / factor))
            if deadline > clock.now {
                do {
                    try await clock.sleep(until: deadline, tolerance: nil)
                } catch {
                    return nil  // cancelled: the replay ends
                }
            }
            return fix
        }
    }
}

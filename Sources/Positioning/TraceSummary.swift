import Foundation
import TourModel

/// The curator's first look at a recording (`walkscape trace`): how long, how far, where, how
/// accurate, and how much of it was unusable and why.
///
/// Computed in one streaming pass with fixed-size state (the accuracy quantiles come from a
/// 0.1 m histogram), so a day-long log costs no more memory than a minute of it.
public struct TraceSummary: Sendable, Hashable, Codable {
    public struct BoundingBox: Sendable, Hashable, Codable {
        public var south: Double
        public var west: Double
        public var north: Double
        public var east: Double
    }

    public struct Bucket: Sendable, Hashable, Codable {
        /// Upper bound in metres, inclusive; nil for the open-ended last bucket.
        public var upToMeters: Double?
        public var count: Int
    }

    public struct Accuracy: Sendable, Hashable, Codable {
        /// Fixes by horizontal error estimate (see `HorizontalError`): ≤5, ≤10, ≤20, ≤50, more.
        public var buckets: [Bucket]
        /// Fixes that carried no estimate at all.
        public var unknown: Int
        public var medianMeters: Double?
        public var p95Meters: Double?
        public var maxMeters: Double?
    }

    public var file: String
    public var format: TraceFile.Format
    /// NMEA sentences or GPX points read.
    public var records: Int
    /// Records that gave nothing, by reason.
    public var rejectedRecords: [String: Int]
    /// Fixes the trace produced, and how many the fix filter accepted.
    public var fixes: Int
    public var acceptedFixes: Int
    /// Fixes the filter dropped, by `FixFilter.Reason`.
    public var rejectedFixes: [String: Int]
    /// First and last accepted fix.
    public var start: Date?
    public var end: Date?
    public var durationSeconds: Double
    /// Along the accepted fixes, on the ellipsoid. A step counts only once the walker is further
    /// from the last counted point than the fix's error estimate (and at least `minimumStep`):
    /// summing raw fix-to-fix distances would turn a walker standing still into kilometres of
    /// jitter.
    public var distanceMeters: Double

    /// Metres: the smallest step counted towards the distance.
    public static let minimumStep = 3.0
    public var boundingBox: BoundingBox?
    public var accuracy: Accuracy
    public var readError: String?

    static let bucketBounds: [Double] = [5, 10, 20, 50]

    /// Reads `file` once through a `FixFilter` with `filter`.
    public init(file: TraceFile, filter configuration: FixFilter.Configuration = .default) {
        var filter = FixFilter(configuration: configuration)
        var rejected = [Int](repeating: 0, count: FixFilter.Reason.allCases.count)
        var fixes = 0, accepted = 0
        var start: Date?, end: Date?
        var previous: Coordinate?
        var distance = 0.0
        var box: BoundingBox?
        var histogram = ErrorHistogram()
        var buckets = [Int](repeating: 0, count: Self.bucketBounds.count + 1)
        var unknown = 0
        /// Counts one accepted fix into the running figures.
        func add(_ fix: Fix) {
            accepted += 1
            if start == nil { start = fix.time }
            // A recording that began before the receiver's first date (GGA before the first RMC):
            // it began on that date, not in 1970 (its duration was 56 years).
            if let s = start, NMEAParser.isUndated(s), !NMEAParser.isUndated(fix.time) {
                start = NMEAParser.redate(s, near: fix.time)
            }
            end = fix.time
            let c = fix.coordinate
            if let p = previous {
                let step = LocalDistance.metres(p, c)
                if step >= max(Self.minimumStep, fix.horizontalError ?? 0) {
                    distance += step
                    previous = c
                }
            } else {
                previous = c
            }
            if var b = box {
                b.south = min(b.south, c.latitude)
                b.north = max(b.north, c.latitude)
                // Longitudes the short way round from the first fix's (kept unwrapped until the
                // end): a walk across 180° spans metres, not the globe.
                let longitude = b.west + Coordinate.wrappedLongitude(c.longitude - b.west)
                b.west = min(b.west, longitude)
                b.east = max(b.east, longitude)
                box = b
            } else {
                box = BoundingBox(south: c.latitude, west: c.longitude, north: c.latitude, east: c.longitude)
            }
        }
        var iterator = file.fixes().makeIterator()
        while let fix = iterator.next() {
            fixes += 1
            if let e = fix.horizontalError, e.isFinite {
                histogram.add(e)
                buckets[Self.bucketBounds.firstIndex { e <= $0 } ?? Self.bucketBounds.count] += 1
            } else {
                unknown += 1
            }
            let verdict = filter.evaluate(fix)
            for _ in filter.dropped { rejected[FixFilter.Reason.allCases.firstIndex(of: .implausibleJump)!] += 1 }
            switch verdict {
            case .rejected(let reason):
                rejected[FixFilter.Reason.allCases.firstIndex(of: reason)!] += 1
            case .held:
                break
            case .accepted:
                for f in filter.released + [fix] { add(f) }
            }
        }
        for f in filter.finish() { add(f) }
        let statistics = iterator.statistics
        self.file = file.url.lastPathComponent
        format = file.format
        records = statistics.records
        rejectedRecords = statistics.rejected
        self.fixes = fixes
        acceptedFixes = accepted
        var byReason: [String: Int] = [:]
        for (i, reason) in FixFilter.Reason.allCases.enumerated() where rejected[i] > 0 {
            byReason[reason.rawValue] = rejected[i]
        }
        rejectedFixes = byReason
        self.start = start
        self.end = end
        durationSeconds = start.flatMap { s in end.map { $0.timeIntervalSince(s) } } ?? 0
        distanceMeters = distance
        // West and east as longitudes again; across 180° west is then greater than east, as a
        // GeoJSON bbox that crosses the antimeridian says.
        boundingBox = box.map {
            BoundingBox(
                south: $0.south, west: Coordinate.wrappedLongitude($0.west), north: $0.north,
                east: Coordinate.wrappedLongitude($0.east))
        }
        accuracy = Accuracy(
            buckets: buckets.enumerated().map {
                Bucket(
                    upToMeters: $0.offset < Self.bucketBounds.count ? Self.bucketBounds[$0.offset] : nil,
                    count: $0.element)
            },
            unknown: unknown, medianMeters: histogram.quantile(0.5), p95Meters: histogram.quantile(0.95),
            maxMeters: histogram.max)
        readError = statistics.readError
    }

    /// The human-readable summary, one fact per line.
    public var text: String {
        var lines: [String] = []
        lines.append("\(file) (\(format == .nmea ? "NMEA 0183" : "GPX"))")
        func row(_ label: String, _ value: String) {
            lines.append("  " + label.padding(toLength: 11, withPad: " ", startingAt: 0) + value)
        }
        if let start, let end {
            row("duration", "\(Self.clock(durationSeconds)) (\(Self.iso(start)) to \(Self.iso(end)))")
        } else {
            row("duration", "no accepted fix")
        }
        var fixLine = "\(fixes) (\(acceptedFixes) accepted"
        if !rejectedFixes.isEmpty { fixLine += "; dropped: " + Self.reasons(rejectedFixes) }
        row("fixes", fixLine + ")")
        let noun = format == .nmea ? "sentences" : "points"
        row(noun, "\(records)" + (rejectedRecords.isEmpty ? "" : " (unused: " + Self.reasons(rejectedRecords) + ")"))
        row(
            "distance",
            distanceMeters >= 1000
                ? String(format: "%.2f km", distanceMeters / 1000) : String(format: "%.0f m", distanceMeters))
        if let b = boundingBox {
            row("bounds", String(format: "%.6f,%.6f to %.6f,%.6f (S,W to N,E)", b.south, b.west, b.north, b.east))
        }
        var acc: [String] = []
        if let m = accuracy.medianMeters, let p = accuracy.p95Meters, let x = accuracy.maxMeters {
            acc.append(String(format: "median %.1f m, 95%% %.1f m, max %.1f m", m, p, x))
        }
        let labels = ["≤5 m", "≤10 m", "≤20 m", "≤50 m", ">50 m"]
        acc.append(
            zip(labels, accuracy.buckets).map { "\($0) \($1.count)" }.joined(separator: ", ")
                + (accuracy.unknown > 0 ? ", no estimate \(accuracy.unknown)" : ""))
        row("accuracy", acc.joined(separator: "; "))
        if let readError { row("warning", "reading stopped early: \(readError)") }
        return lines.joined(separator: "\n")
    }

    static func reasons(_ counts: [String: Int]) -> String {
        counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
    }

    static func iso(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: false).timeZone(separator: .omitted))
    }
}

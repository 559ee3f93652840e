/// The limits a tour's numbers must keep, wherever the tour comes from: a tour folder's
/// `tour.json` and the service's answers are held to the same ones, here (docs/tour-folder.md).
/// A number outside them is refused where it is read, naming the field, so no later arithmetic
/// (sums of sizes, minutes shown as integers, a circle's area) meets NaN, an infinity or 1e308.
public enum TourLimits {
    /// A point's trigger radius: more than 0 and at most 1000 metres.
    public static let triggerRadiusMeters: ClosedRange<Double> = Double.leastNonzeroMagnitude...1000
    public static let latitude: ClosedRange<Double> = -90...90
    public static let longitude: ClosedRange<Double> = -180...180
    /// A walk of at most a week.
    public static let durationMinutes: ClosedRange<Double> = 0...10_080
    /// At most 1000 km.
    public static let distanceKm: ClosedRange<Double> = 0...1000
    /// A media file of at most 64 GiB.
    public static let fileSizeBytes: ClosedRange<Double> = 0...68_719_476_736
    /// A point's order.
    public static let order: ClosedRange<Int> = -1_000_000_000...1_000_000_000
    /// The longest access or refresh token kept (a JWT is about a kilobyte): each request's head
    /// carries it.
    public static let tokenLength = 16_384

    /// nil when `value` is within `range`; otherwise why not, in a few words
    /// ("1e+19 is not within 0...68719476736").
    public static func problem(_ value: Double, _ range: ClosedRange<Double>) -> String? {
        if range.contains(value) { return nil }
        if value.isNaN { return "is not a number" }
        if value.isInfinite { return "is infinite" }
        return "\(value) is not within \(Self.phrase(range))"
    }

    static func phrase(_ range: ClosedRange<Double>) -> String {
        func text(_ d: Double) -> String {
            d == Double.leastNonzeroMagnitude
                ? "0 (exclusive)" : d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : "\(d)"
        }
        return "\(text(range.lowerBound))...\(text(range.upperBound))"
    }
}

/// Horizontal errors in 0.1 m bins up to 1 km, plus the largest value: quantiles to 0.1 m in
/// fixed memory.
struct ErrorHistogram {
    static let binWidth = 0.1
    static let binCount = 10_000
    private var bins = [Int](repeating: 0, count: binCount + 1)
    private var count = 0
    private(set) var max: Double?

    mutating func add(_ value: Double) {
        let v = Swift.max(0, value)
        // Clamp before converting: an absurd estimate (a GPX <hdop>1e300</hdop>) trapped in Int().
        bins[Int(Swift.min(Double(Self.binCount), v / Self.binWidth))] += 1
        count += 1
        max = Swift.max(max ?? v, v)
    }

    /// The upper edge of the bin holding the `q` quantile (capped at the maximum seen).
    func quantile(_ q: Double) -> Double? {
        guard count > 0, let max else { return nil }
        let target = Swift.max(1, Int((q * Double(count)).rounded(.up)))
        var seen = 0
        for (i, n) in bins.enumerated() {
            seen += n
            // The last bin holds everything beyond a kilometre: its only known edge is the maximum.
            if seen >= target { return i == Self.binCount ? max : Swift.min(max, Double(i + 1) * Self.binWidth) }
        }
        return max
    }
}

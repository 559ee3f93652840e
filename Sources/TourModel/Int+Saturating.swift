extension Int {
    /// `value` as an Int for people to read (metres, seconds, minutes), never a trap: `Int(Double)`
    /// traps on NaN, infinities and anything beyond ±9.2e18, and numbers from files, flags and
    /// receivers can be any of those. NaN reads as 0; the rest is clamped and truncated.
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= 9.2e18 {
            self = .max
        } else if value <= -9.2e18 {
            self = .min
        } else {
            self = Int(value)
        }
    }
}

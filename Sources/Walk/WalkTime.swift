import Foundation

/// Times, durations and distances as the reports print them for people. (Machine timestamps are
/// TourModel's `ISO8601`, the service's form.)
public enum WalkTime {
    /// `+12:05` or `+1:02:03`: an offset into a walk, for people.
    public static func offset(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.down))
        let h = total / 3600, m = (total % 3600) / 60, s = total % 60
        return h > 0 ? String(format: "+%d:%02d:%02d", h, m, s) : String(format: "+%02d:%02d", m, s)
    }

    /// `2m 41s`, `13.4s`: a duration, for people.
    public static func duration(_ seconds: Double) -> String {
        if seconds < 60 { return String(format: "%.1fs", seconds) }
        let total = Int(seconds.rounded())
        if total < 3600 { return "\(total / 60)m \(String(format: "%02d", total % 60))s" }
        return "\(total / 3600)h \(String(format: "%02d", (total % 3600) / 60))m"
    }

    /// `480 m`, `12.3 km`: a distance, for people.
    public static func distance(_ metres: Double) -> String {
        metres < 10_000 ? "\(Int(metres.rounded())) m" : String(format: "%.1f km", metres / 1000)
    }
}

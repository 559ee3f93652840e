/// Calendar arithmetic without `Calendar`: NMEA and GPX dates are UTC and Gregorian, and the
/// parsers turn thousands of them a second into `Date`s.
public enum CivilDate {
    /// Seconds since 1970 of the dates people are shown, 1970-01-01 to the end of 9999-12-31: the
    /// calendar printed switches to Julian days before 1582, and a year past 9999 has no four digits.
    public static let shownSeconds: ClosedRange<Double> = 0...253_402_300_799.999

    /// True when `day` exists in that month of that year: 31 February does not, and is never
    /// quietly carried over into March.
    public static func isValid(year: Int, month: Int, day: Int) -> Bool {
        guard (1...12).contains(month), day >= 1 else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return day <= lengths[month - 1]
    }

    /// True for a time of day a UTC clock can show: up to 23:59:59, and 23:59:60 (a leap second,
    /// which POSIX time, and so `Date`, counts as the next day's 00:00:00).
    public static func isValidTime(hour: Int, minute: Int, second: Int) -> Bool {
        guard (0..<24).contains(hour), (0..<60).contains(minute), (0...60).contains(second) else { return false }
        return second < 60 || (hour == 23 && minute == 59)
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

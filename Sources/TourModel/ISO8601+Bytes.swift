import Foundation

extension ISO8601 {
    /// The decimal number written by `count` ASCII digits of `t` from `at`; nil if one is not a digit.
    static func number(_ t: UnsafeBufferPointer<UInt8>, _ at: Int, _ count: Int) -> Int? {
        guard at + count <= t.count else { return nil }
        var v = 0
        for i in at..<(at + count) {
            let d = Int(t[i]) - 48
            guard (0...9).contains(d) else { return nil }
            v = v * 10 + d
        }
        return v
    }

    /// The day a time starts with, `YYYY-MM-DD`, if it is one that exists.
    static func civilDay(_ t: UnsafeBufferPointer<UInt8>) -> (year: Int, month: Int, day: Int)? {
        func digits(_ at: Int, _ count: Int) -> Int? { number(t, at, count) }
        guard t.count >= 10, let year = digits(0, 4), t[4] == 45, let month = digits(5, 2), t[7] == 45,
            let day = digits(8, 2), CivilDate.isValid(year: year, month: month, day: day)
        else { return nil }
        return (year, month, day)
    }

    /// The ISO 8601 forms GPX files use, read straight from a file's bytes: `2024-05-01T10:00:00Z`,
    /// with optional fractional seconds and a `Z`, `±hh:mm` or `±hhmm` zone (none means UTC: a GPX
    /// time is UTC by the format's definition, unlike a time the service sends).
    public static func parse(_ t: UnsafeBufferPointer<UInt8>) -> Date? {
        func digits(_ at: Int, _ count: Int) -> Int? { number(t, at, count) }
        guard t.count >= 19, let (year, month, day) = civilDay(t), t[10] == 84 || t[10] == 32,
            let hour = digits(11, 2), t[13] == 58, let minute = digits(14, 2), t[16] == 58, let second = digits(17, 2),
            (0..<24).contains(hour), (0..<60).contains(minute), (0...60).contains(second)
        else { return nil }
        var i = 19
        var fraction = 0.0
        if i < t.count, t[i] == 46 {
            i += 1
            guard i < t.count, (48...57).contains(t[i]) else { return nil }
            var scale = 0.1
            while i < t.count, (48...57).contains(t[i]) {
                fraction += Double(t[i] - 48) * scale
                scale /= 10
                i += 1
            }
        }
        var offset = 0
        if i < t.count {
            switch t[i] {
            case 90: i += 1  // Z
            case 43, 45:
                let sign = t[i] == 45 ? -1 : 1
                guard let hh = digits(i + 1, 2), hh < 24 else { return nil }
                var mm = 0
                if let m = digits(i + 3, 2), m < 60 {
                    mm = m; i += 5
                } else if i + 3 < t.count, t[i + 3] == 58, let m = digits(i + 4, 2), m < 60 {
                    mm = m
                    i += 6
                } else {
                    i += 3
                }
                offset = sign * (hh * 3600 + mm * 60)
            default: return nil
            }
        }
        guard i == t.count else { return nil }
        // A leap second is 23:59:60 in UTC, whatever the zone the time is written in.
        if second == 60 {
            let utcMinute = ((hour * 60 + minute - offset / 60) % 1440 + 1440) % 1440
            guard utcMinute == 23 * 60 + 59 else { return nil }
        }
        let days = CivilDate.days(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
        return Date(timeIntervalSince1970: seconds)
    }
}

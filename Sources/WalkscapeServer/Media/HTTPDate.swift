import Foundation

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), for `Last-Modified`, `If-Range` and
/// `If-Modified-Since`. Formatted by hand: DateFormatter is neither cheap nor needed.
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static var calendar: Calendar {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "GMT")!
        return c
    }

    static func format(_ date: Date) -> String {
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        func two(_ v: Int?) -> String { let v = v ?? 0; return v < 10 ? "0\(v)" : "\(v)" }
        return "\(days[(c.weekday ?? 1) - 1]), \(two(c.day)) \(months[(c.month ?? 1) - 1]) \(c.year ?? 1970) "
            + "\(two(c.hour)):\(two(c.minute)):\(two(c.second)) GMT"
    }

    static func parse(_ text: String) -> Date? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]),
            let month = months.firstIndex(of: String(parts[2])), let year = Int(parts[3])
        else { return nil }
        let time = parts[4].split(separator: ":")
        guard time.count == 3, let h = Int(time[0]), let m = Int(time[1]), let s = Int(time[2]) else { return nil }
        return calendar.date(
            from: DateComponents(year: year, month: month + 1, day: day, hour: h, minute: m, second: s))
    }
}

import Foundation

/// The `Retry-After` header (RFC 9110 §10.2.3): a number of seconds, or an HTTP date.
public enum RetryAfter {
    /// The longest wait read: a longer one is read as this. A service asking for more than a day
    /// is asked again in a day; and a wait of 2^63 seconds would not fit in what messages, timers
    /// and sums make of it.
    public static let longest = Duration.seconds(86_400)
    /// How long from `now` the server asks us to wait, at most `longest`; nil when the value is
    /// neither form. A date in the past means no wait at all.
    public static func parse(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        let longestSeconds = longest.components.seconds
        if text.allSatisfy(\.isASCIIDigitCharacter) {
            // More digits than an Int64 holds is still "a very long time", not garbage.
            return .seconds(min(Int64(text) ?? Int64.max, longestSeconds))
        }
        guard let date = httpDate(text) else { return nil }
        let seconds = date.timeIntervalSince(now)
        guard seconds > 0 else { return .zero }
        guard seconds < Double(longestSeconds) else { return longest }
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    /// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), and the two obsolete forms recipients must
    /// still accept: RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`).
    public static func httpDate(_ text: String) -> Date? {
        let collapsed = text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        // RFC 9110: a two-digit year more than 50 years ahead is in the past century.
        formatter.twoDigitStartDate = Calendar(identifier: .gregorian).date(byAdding: .year, value: -49, to: Date())
        for format in ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: collapsed) { return date }
        }
        return nil
    }
}

extension Character {
    var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}

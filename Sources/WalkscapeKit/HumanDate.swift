import Foundation

/// Dates as a person reads them at the terminal: `2026-05-08 14:03`, local time.
package enum HumanDate {
    package static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}

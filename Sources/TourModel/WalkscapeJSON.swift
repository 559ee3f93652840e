import Foundation

/// JSON coders with the service's conventions: ISO-8601 timestamps with a zone, milliseconds when
/// sending (`2026-05-01T09:00:00.000Z`), and both with and without fractions when reading.
public enum WalkscapeJSON {
    public static func decoder() -> JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .custom { decoder in
            let c = try decoder.singleValueContainer()
            let text = try c.decode(String.self)
            guard let date = ISO8601.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    in: c, debugDescription: "\"\(text)\" is not an ISO-8601 time with a zone")
            }
            return date
        }
        return d
    }

    public static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(ISO8601.format(date))
        }
        return e
    }
}

public enum ISO8601 {
    /// `2026-05-01T09:00:00.000Z`: UTC with milliseconds, what the live service stores. Written
    /// out by hand, as Foundation's `ISO8601FormatStyle(includingFractionalSeconds: true)` writes
    /// it (a test compares them): that style loads ICU's calendar and the machine's time zone the
    /// first time it is used, about 2 ms of a short preview, for a UTC time.
    public static func format(_ date: Date) -> String {
        // As Foundation does: whole seconds and the fraction's nanoseconds from the time since
        // 2001 (what a Date holds), the milliseconds cut from those, not rounded.
        let sinceReference = date.timeIntervalSinceReferenceDate
        let whole = sinceReference.rounded(.down)
        // From the Gregorian calendar's first day (1582-10-15: ICU's calendar is Julian before it)
        // to the end of year 9999; anything else as Foundation writes it.
        guard whole >= -13_197_600_000, whole < 252_423_993_600 else {
            return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        }
        let nanoseconds = Int64((sinceReference - whole) * 1e9)
        let total = (Int64(whole) + 978_307_200) * 1000 + min(999, nanoseconds / 1_000_000)
        let (days, inDay) = total.quotientAndRemainder(dividingBy: 86_400_000)
        let day = inDay < 0 ? days - 1 : days
        let ms = inDay < 0 ? inDay + 86_400_000 : inDay
        // Days since 1970-01-01 to a civil date (H. Hinnant's algorithm, proleptic Gregorian).
        let z = day + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        var text = [UInt8]()
        text.reserveCapacity(24)
        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(year, 4)
        text.append(UInt8(ascii: "-"))
        digits(month, 2)
        text.append(UInt8(ascii: "-"))
        digits(dayOfMonth, 2)
        text.append(UInt8(ascii: "T"))
        digits(ms / 3_600_000, 2)
        text.append(UInt8(ascii: ":"))
        digits(ms / 60_000 % 60, 2)
        text.append(UInt8(ascii: ":"))
        digits(ms / 1000 % 60, 2)
        text.append(UInt8(ascii: "."))
        digits(ms % 1000, 3)
        text.append(UInt8(ascii: "Z"))
        return String(decoding: text, as: UTF8.self)
    }

    /// Accepts `...Z`, `...+02:00`, with or without fractional seconds. A time without a zone is
    /// rejected: guessing the zone would silently shift events by hours. So is a day that does not
    /// exist: Foundation's parser read `2026-02-30` as 2 March (a journal's event was sent so).
    public static func parse(_ text: String) -> Date? {
        guard Array(text.utf8.prefix(10)).withUnsafeBufferPointer({ civilDay($0) }) != nil else { return nil }
        if let d = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return d }
        if let d = try? Date.ISO8601FormatStyle().parse(text) { return d }
        return nil
    }
}

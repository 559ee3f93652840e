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
    /// `2026-05-01T09:00:00.000Z`: UTC with milliseconds, what the live service stores.
    public static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
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

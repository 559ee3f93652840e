import Foundation

/// `--json`: one pretty-printed document on stdout, keys sorted, for scripts; dates as ISO-8601
/// with milliseconds, as the service writes them.
enum JSONOutput {
    static func write(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
        Console.json(try encoder.encode(value))
    }
}

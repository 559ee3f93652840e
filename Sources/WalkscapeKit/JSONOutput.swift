import Foundation
import TourModel

/// `--json`: one pretty-printed document on stdout, keys sorted, for scripts; dates as ISO-8601
/// with milliseconds, as the service writes them.
/// Every command's `--json` goes through here.
package enum JSONOutput {
    package static func write(_ value: some Encodable) throws {
        Console.json(try encoder(pretty: true).encode(value))
    }

    /// One compact JSON object on one line (JSON Lines: a download's progress events).
    package static func writeLine(_ value: some Encodable) throws {
        Console.json(try encoder(pretty: false).encode(value))
    }

    /// The service's encoder (sorted keys, ISO 8601 with milliseconds), indented for people.
    package static func encoder(pretty: Bool) -> JSONEncoder {
        let encoder = WalkscapeJSON.encoder()
        if pretty { encoder.outputFormatting.insert(.prettyPrinted) }
        return encoder
    }
}

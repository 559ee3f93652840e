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

    /// A pretty-printed array written element by element, as `write` would print the whole array:
    /// for lists too long to hold in memory at once.
    package final class ArrayWriter {
        private let encoder = JSONOutput.encoder(pretty: true)
        private var buffer = Data()
        private var count = 0

        package init() {}

        package func append(_ value: some Encodable) throws {
            let element = try encoder.encode(value)
            buffer.append(contentsOf: Array((count == 0 ? "[\n  " : ",\n  ").utf8))
            // The element's own lines, indented one level as inside the array.
            for byte in element {
                buffer.append(byte)
                if byte == 0x0A { buffer.append(contentsOf: [0x20, 0x20]) }
            }
            count += 1
            if buffer.count >= 1 << 16 { flush() }
        }

        /// Ends the array (an empty one exactly as `write` prints it) and writes what is left.
        package func finish() throws {
            guard count > 0 else { return try JSONOutput.write([Int]()) }
            buffer.append(contentsOf: Array("\n]".utf8))
            Console.json(buffer)
            buffer.removeAll()
        }

        private func flush() {
            Console.jsonPart(buffer)
            buffer.removeAll(keepingCapacity: true)
        }
    }
}

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

    /// A pretty-printed array written a piece at a time, exactly as `write` would print the whole
    /// array: for lists too long to hold in memory at once. Elements are encoded in chunks (one
    /// encoder call per element costs more than the element), and each chunk's array is spliced
    /// into the one document.
    package final class ArrayWriter<Element: Encodable> {
        private let encoder = JSONOutput.encoder(pretty: true)
        private var pending: [Element] = []
        private var written = 0
        static var chunk: Int { 256 }

        package init() {}

        package func append(_ value: Element) throws {
            pending.append(value)
            if pending.count >= Self.chunk { try flush() }
        }

        /// Ends the array (an empty one exactly as `write` prints it) and writes what is left.
        package func finish() throws {
            try flush()
            guard written > 0 else { return try JSONOutput.write([Int]()) }
            Console.json(Data("\n]".utf8))
        }

        private func flush() throws {
            guard !pending.isEmpty else { return }
            // `[\n  {...},\n  {...}\n]`: the elements are what lies between `[\n` and `\n]`.
            let array = try encoder.encode(pending)
            var piece = Data(written == 0 ? "[\n".utf8 : ",\n".utf8)
            piece.append(array.dropFirst(2).dropLast(2))
            Console.jsonPart(piece)
            written += pending.count
            pending.removeAll(keepingCapacity: true)
        }
    }
}

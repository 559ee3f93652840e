import Crypto
import Foundation
import TourModel

/// Reads the JSON-lines event journal (`state/outbox.jsonl`, one live-shape event per line) that
/// walkscape wrote before the outbox existed, keeping every event that can be read:
/// - a last line cut short by a crash is not an event, and is kept aside as bytes;
/// - a line cut short and then glued to the next one (a journal written before the journal took
///   back partial lines) still yields the event that follows the cut;
/// - a line without `properties.eventId` gets an id made from its bytes, so reading the same journal
///   twice gives the same ids (and the outbox takes each event once).
struct JournalLines {
    /// Bytes that are no event (torn or foreign lines), newline-separated, for keeping aside.
    var unreadable = Data()
    /// Events read.
    var count = 0

    /// Hands each event of `data` to `each` as it is read, one line at a time.
    mutating func scan(_ data: Data, _ each: (AnalyticsEvent) throws -> Void) rethrows {
        let decoder = WalkscapeJSON.decoder()
        // Lines found with memchr over the bytes: walking a Data byte by byte is slow.
        let bytes = [UInt8](data)
        var lineStart = 0
        while lineStart < bytes.count {
            let lineEnd =
                bytes.withUnsafeBufferPointer { buffer -> Int? in
                    guard let base = buffer.baseAddress,
                        let hit = memchr(base + lineStart, 0x0A, buffer.count - lineStart)
                    else { return nil }
                    return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                } ?? bytes.count
            defer { lineStart = lineEnd + 1 }
            let line = bytes[lineStart..<lineEnd]
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            if let event = Self.decode(Data(line), decoder) {
                count += 1
                try each(event)
                continue
            }
            // A cut-off line glued to a whole one: the whole one starts at a later `{`.
            var salvaged = false
            var start = line.startIndex
            while start < line.endIndex,
                let brace = line[line.index(after: start)...].firstIndex(of: UInt8(ascii: "{"))
            {
                if let event = Self.decode(Data(line[brace...]), decoder) {
                    count += 1
                    try each(event)
                    unreadable.append(contentsOf: line[..<brace])
                    unreadable.append(UInt8(ascii: "\n"))
                    salvaged = true
                    break
                }
                start = brace
            }
            if !salvaged {
                unreadable.append(contentsOf: line)
                unreadable.append(UInt8(ascii: "\n"))
            }
        }
    }

    private static func decode(_ bytes: Data, _ decoder: JSONDecoder) -> AnalyticsEvent? {
        guard var event = try? decoder.decode(AnalyticsEvent.self, from: bytes), !event.name.isEmpty else { return nil }
        if event.eventID == nil { event.properties["eventId"] = .string(stableID(bytes)) }
        return event
    }

    /// A UUID (version 5 layout) from the SHA-256 of the line.
    static func stableID(_ bytes: Data) -> String {
        var digest = Array(SHA256.hash(data: bytes).prefix(16))
        digest[6] = (digest[6] & 0x0F) | 0x50
        digest[8] = (digest[8] & 0x3F) | 0x80
        let hex = digest.map { String(format: "%02x", $0) }.joined()
        let parts = [
            hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4),
            hex.dropFirst(20),
        ]
        return parts.joined(separator: "-")
    }
}

import Foundation

/// `Content-Range: bytes START-END/TOTAL` (TOTAL may be `*`) of a 206 answer.
struct ContentRange: Sendable, Hashable {
    var start: Int64
    var end: Int64
    var total: Int64?

    init?(_ header: String?) {
        guard let header else { return nil }
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst("bytes ".count)
        let halves = spec.split(separator: "/", maxSplits: 1)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]), 0 <= start, start <= end
        else {
            return nil
        }
        self.start = start
        self.end = end
        total = halves[1] == "*" ? nil : Int64(halves[1])
        if halves[1] != "*" && total == nil { return nil }
        // The bytes lie within the file (RFC 9110: the last byte's position is below the length).
        if let total, end >= total { return nil }
    }
}

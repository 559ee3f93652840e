import Foundation

/// A `Range` request header against a file of known size (RFC 9110 14.2), single ranges only, as S3.
enum ByteRange: Sendable, Equatable {
    /// No usable Range header: send the whole file (malformed and multi-range headers are ignored, as
    /// RFC 9110 allows).
    case whole
    /// Send these bytes with 206.
    case partial(ClosedRange<Int64>)
    /// 416, with `Content-Range: bytes */SIZE`.
    case unsatisfiable

    static func parse(_ header: String?, size: Int64) -> ByteRange {
        guard let header else { return .whole }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .whole }
        let spec = trimmed.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        guard first.allSatisfy(\.isASCII), last.allSatisfy(\.isASCII) else { return .whole }
        if first.isEmpty {
            // bytes=-N: the last N bytes.
            guard let count = position(last) else { return .whole }
            guard count > 0, size > 0 else { return .unsatisfiable }
            return .partial(max(0, size - count)...(size - 1))
        }
        guard let start = position(first) else { return .whole }
        var end = size - 1
        if !last.isEmpty {
            guard let e = position(last), e >= start else { return .whole }
            end = min(e, size - 1)
        }
        guard start < size else { return .unsatisfiable }
        return .partial(start...end)
    }

    /// A run of ASCII digits as a position; one too large for 64 bits as the largest, which is past
    /// any file (such a header got the whole file with 200, where a start there is a 416).
    static func position(_ digits: String) -> Int64? {
        guard !digits.isEmpty, digits.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        return Int64(digits) ?? .max
    }
}

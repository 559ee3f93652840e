#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import TourModel

/// Streams the timed points of a GPX file (phones export walks as GPX).
///
/// Not a general XML parser: GPX points are flat, small elements, so the reader finds each
/// `<trkpt>`, `<rtept>` or `<wpt>` element in the byte stream and reads its `lat`/`lon`
/// attributes and its `time`, `ele`, `hdop`, `sat`, `fix`, `speed` and `course` children. That
/// keeps memory flat on files of any length, and ignores everything else (metadata, extensions,
/// routes' names). A point without `<time>` cannot be replayed and is counted as `untimed`.
struct GPXReader {
    struct Counters: Sendable, Hashable {
        var points = 0
        var untimed = 0
        var malformed = 0
        var fixes = 0
    }

    private(set) var counters = Counters()
    private let reader: ByteReader

    init(reader: ByteReader) {
        self.reader = reader
    }

    private static let kinds: [[UInt8]] = [Array("trkpt".utf8), Array("rtept".utf8), Array("wpt".utf8)]
    private static let closers: [[UInt8]] = kinds.map { Array("</".utf8) + $0 }
    /// The byte strings searched for in every point, made once.
    private enum Tag {
        static let lat = Array("lat".utf8), lon = Array("lon".utf8)
        static let time = Array("<time>".utf8), ele = Array("<ele>".utf8), hdop = Array("<hdop>".utf8)
        static let sat = Array("<sat>".utf8), fix = Array("<fix>".utf8), speed = Array("<speed>".utf8)
        static let course = Array("<course>".utf8)
    }

    mutating func next() -> Fix? {
        while true {
            guard let kind = findPointStart() else { return nil }
            guard let elementEnd = findPointEnd(kind: kind) else {
                // Unterminated (truncated file or a point larger than the reader may grow): skip it.
                counters.points += 1
                counters.malformed += 1
                reader.start = min(reader.end, reader.start + 1)
                continue
            }
            counters.points += 1
            let fix = parsePoint(reader.buffer, reader.start, elementEnd)
            reader.start = elementEnd
            if let fix {
                counters.fixes += 1
                return fix
            }
        }
    }

    /// Positions `reader.start` at the next point's `<` and returns its kind.
    private func findPointStart() -> Int? {
        while true {
            let p = reader.buffer
            var i = reader.start
            while i < reader.end {
                guard let lt = memchr(p + i, 60, reader.end - i) else { i = reader.end; break }
                let at = p.distance(to: lt.assumingMemoryBound(to: UInt8.self))
                // Need the tag name and one delimiter after it.
                if reader.end - at < 7 {
                    i = at
                    break
                }
                for (k, name) in Self.kinds.enumerated() where matches(p, at + 1, name) {
                    let after = p[at + 1 + name.count]
                    if after == 32 || after == 9 || after == 10 || after == 13 || after == 62 || after == 47 {
                        reader.start = at
                        return k
                    }
                }
                i = at + 1
            }
            reader.start = i
            if !reader.fill() { return nil }
        }
    }

    /// The index just past the end tag (or `/>`) of the point starting at `reader.start`,
    /// reading more input if needed (which may move the point to the front of the buffer).
    private func findPointEnd(kind: Int) -> Int? {
        let close = Self.closers[kind]
        var offset = 0  // searched so far, relative to the point's start
        while true {
            let p = reader.buffer
            let begin = reader.start
            // Self-closing start tag: `<trkpt lat=".." lon=".."/>`.
            if let gt = memchr(p + begin, 62, reader.end - begin) {
                let g = p.distance(to: gt.assumingMemoryBound(to: UInt8.self))
                if g > begin, p[g - 1] == 47 { return g + 1 }
            }
            var i = begin + offset
            while i + close.count <= reader.end {
                guard let lt = memchr(p + i, 60, reader.end - i) else { break }
                let at = p.distance(to: lt.assumingMemoryBound(to: UInt8.self))
                if at + close.count > reader.end { break }
                if matches(p, at, close) {
                    guard let gt = memchr(p + at, 62, reader.end - at) else { break }
                    return p.distance(to: gt.assumingMemoryBound(to: UInt8.self)) + 1
                }
                i = at + 1
            }
            offset = max(0, i - begin)
            if !reader.fill(grow: true) { return nil }
        }
    }

    private func matches(_ p: UnsafeMutablePointer<UInt8>, _ at: Int, _ name: [UInt8]) -> Bool {
        guard at + name.count <= reader.end else { return false }
        for (j, c) in name.enumerated() where p[at + j] != c { return false }
        return true
    }

    private mutating func parsePoint(_ p: UnsafeMutablePointer<UInt8>, _ from: Int, _ to: Int) -> Fix? {
        let element = UnsafeBufferPointer(start: p + from, count: to - from)
        var tagEnd = 0
        while tagEnd < element.count, element[tagEnd] != 62 { tagEnd += 1 }
        let startTag = UnsafeBufferPointer(rebasing: element[0..<tagEnd])
        guard let lat = attribute(startTag, Tag.lat).flatMap(Self.number),
              let lon = attribute(startTag, Tag.lon).flatMap(Self.number) else {
            counters.malformed += 1
            return nil
        }
        let coordinate = Coordinate(latitude: lat, longitude: lon)
        guard coordinate.isValid else {
            counters.malformed += 1
            return nil
        }
        let body = UnsafeBufferPointer(rebasing: element[min(tagEnd + 1, element.count)...])
        guard let timeText = child(body, Tag.time) else {
            counters.untimed += 1
            return nil
        }
        guard let time = ISO8601.parse(timeText) else {
            counters.malformed += 1
            return nil
        }
        let ele = child(body, Tag.ele).flatMap(Self.number)
        let hdop = child(body, Tag.hdop).flatMap(Self.unsigned)
        var mode: Fix.Mode = ele != nil ? .threeD : .twoD
        if let fixText = child(body, Tag.fix) {
            switch String(decoding: fixText, as: UTF8.self) {
            case "none": mode = .noFix
            case "2d": mode = .twoD
            case "3d", "dgps", "pps": mode = .threeD
            default: break
            }
        }
        return Fix(time: time, coordinate: coordinate, mode: mode,
                   horizontalError: hdop.map(HorizontalError.fromHDOP), altitude: ele,
                   speed: child(body, Tag.speed).flatMap(Self.unsigned), track: child(body, Tag.course).flatMap(Self.unsigned),
                   satellites: child(body, Tag.sat).flatMap(Self.number).flatMap(Self.count), hdop: hdop, source: .gpx)
    }

    /// The value of `name="..."` (or single quotes) in a start tag.
    private func attribute(_ tag: UnsafeBufferPointer<UInt8>, _ n: [UInt8]) -> UnsafeBufferPointer<UInt8>? {
        var i = 1
        while i + n.count + 2 < tag.count {
            let before = tag[i - 1]
            if before == 32 || before == 9 || before == 10 || before == 13,
               (0..<n.count).allSatisfy({ tag[i + $0] == n[$0] }) {
                var j = i + n.count
                while j < tag.count, tag[j] == 32 { j += 1 }
                if j < tag.count, tag[j] == 61 {
                    j += 1
                    while j < tag.count, tag[j] == 32 { j += 1 }
                    guard j < tag.count, tag[j] == 34 || tag[j] == 39 else { return nil }
                    let quote = tag[j]
                    var k = j + 1
                    while k < tag.count, tag[k] != quote { k += 1 }
                    guard k < tag.count else { return nil }
                    return UnsafeBufferPointer(rebasing: tag[(j + 1)..<k])
                }
            }
            i += 1
        }
        return nil
    }

    /// The text of the first `<name>...</...>` child, trimmed.
    private func child(_ body: UnsafeBufferPointer<UInt8>, _ open: [UInt8]) -> UnsafeBufferPointer<UInt8>? {
        guard open.count <= body.count else { return nil }
        var i = 0
        while i + open.count <= body.count {
            if body[i] == 60, (1..<open.count).allSatisfy({ body[i + $0] == open[$0] }) {
                var s = i + open.count
                var e = s
                while e < body.count, body[e] != 60 { e += 1 }
                while s < e, body[s] == 32 || body[s] == 10 || body[s] == 13 || body[s] == 9 { s += 1 }
                while e > s, body[e - 1] == 32 || body[e - 1] == 10 || body[e - 1] == 13 || body[e - 1] == 9 { e -= 1 }
                return UnsafeBufferPointer(rebasing: body[s..<e])
            }
            i += 1
        }
        return nil
    }

    /// Plain decimals are read in place; anything fancier (exponents) goes through `Double`.
    /// `nan`, `inf` and overflowing values read as absent.
    static func number(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let base = text.baseAddress, !text.isEmpty, text.count < 40 else { return nil }
        let cursor = FieldCursor(p: base, position: 0, end: text.count)
        if let value = cursor.decimal(0..<text.count) { return value }
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// A number that must not be negative (HDOP, speed, course), as in NMEA (found by fuzz-nmea:
    /// a negative `<hdop>` gave a negative error estimate).
    static func unsigned(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let value = number(text), value >= 0 else { return nil }
        return value
    }

    /// A satellite count: a whole number a receiver could report (found by fuzz-nmea:
    /// `<sat>1e300</sat>` trapped converting to `Int`).
    static func count(_ value: Double) -> Int? {
        guard value >= 0, value <= 1000, let n = Int(exactly: value.rounded()) else { return nil }
        return n
    }
}

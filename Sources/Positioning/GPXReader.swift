import Foundation
import TourModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Streams the timed points of a GPX file (phones export walks as GPX).
///
/// Not a general XML parser: GPX points are flat, small elements, so the reader finds each
/// `<trkpt>`, `<rtept>` or `<wpt>` element in the byte stream and reads its `lat`/`lon`
/// attributes and its `time`, `ele`, `hdop`, `sat`, `fix`, `speed` and `course` children. That
/// keeps memory flat on files of any length, and ignores everything else (metadata, extensions,
/// routes' names). A point without `<time>` cannot be replayed and is counted as `untimed`.
///
/// XML rules it follows all the same: GPX elements may carry a namespace prefix
/// (`<gpx:trkpt>`), as any prefix the root element binds to the GPX namespace
/// (`xmlns:gpx="http://www.topografix.com/GPX/1/1"`, or the root's own prefix); unprefixed names
/// are read too, as files without any `xmlns` are common. Elements of other namespaces
/// (`<ext:time>` in an extension) are not GPX's. A child's text may be CDATA
/// (`<time><![CDATA[...]]></time>`), and its start tag may have attributes or spaces.
struct GPXReader {
    struct Counters: Sendable, Hashable {
        var points = 0
        var untimed = 0
        var malformed = 0
        var fixes = 0
    }

    private(set) var counters = Counters()
    private let reader: ByteReader
    /// The prefixes GPX elements are written with, `gpx:` style, `""` for none; from the root
    /// element (`readRoot()`), before the first point is looked for.
    private var prefixes: [[UInt8]] = [[]] {
        didSet {
            closers = prefixes.map { prefix in Self.kinds.map { Array("</".utf8) + prefix + $0 } }
            longestStart = (prefixes.map(\.count).max() ?? 0) + 7
        }
    }
    /// Bytes needed to tell a point's start tag: `<`, the longest prefix, `trkpt`, a delimiter.
    private var longestStart = 7
    /// `</` + prefix + kind, by prefix and kind, made once.
    private var closers: [[[UInt8]]] = [kinds.map { Array("</".utf8) + $0 }]
    private var rootRead = false

    init(reader: ByteReader) {
        self.reader = reader
    }

    private static let kinds: [[UInt8]] = [Array("trkpt".utf8), Array("rtept".utf8), Array("wpt".utf8)]
    /// The byte strings searched for in every point, made once.
    private enum Tag {
        static let lat = Array("lat".utf8), lon = Array("lon".utf8)
        static let time = Array("time".utf8), ele = Array("ele".utf8), hdop = Array("hdop".utf8)
        static let sat = Array("sat".utf8), fix = Array("fix".utf8), speed = Array("speed".utf8)
        static let course = Array("course".utf8)
        static let cdataOpen = Array("<![CDATA[".utf8), cdataClose = Array("]]>".utf8)
        static let namespace = Array("topografix.com/GPX/".utf8)
        static let xmlns = Array("xmlns".utf8)
    }
    /// How far into the file the root element is looked for (past the XML declaration, comments,
    /// a DOCTYPE).
    static let rootWindow = 64 * 1024

    mutating func next() -> Fix? {
        if !rootRead {
            rootRead = true
            readRoot()
        }
        while true {
            guard let (kind, prefix) = findPointStart() else { return nil }
            guard let elementEnd = findPointEnd(closer: closers[prefix][kind]) else {
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

    /// Reads the namespace prefixes bound to GPX from the root element's start tag (without
    /// consuming anything): its own prefix when its name is `P:gpx`, and every `xmlns:P` whose
    /// URI is a topografix GPX namespace.
    private mutating func readRoot() {
        var searched = 0
        while true {
            let p = reader.buffer
            var i = reader.start + searched
            while i < reader.end {
                guard let lt = memchr(p + i, 60, reader.end - i) else { i = reader.end; break }
                let at = p.distance(to: lt.assumingMemoryBound(to: UInt8.self))
                guard at + 1 < reader.end else { i = at; break }
                let next = p[at + 1]
                if next == 63 || next == 33 {  // <? and <! (declaration, comment, DOCTYPE): not elements
                    i = at + 1
                    continue
                }
                guard let gt = memchr(p + at, 62, reader.end - at) else { i = at; break }
                let end = p.distance(to: gt.assumingMemoryBound(to: UInt8.self))
                learnPrefixes(UnsafeBufferPointer(start: p + at + 1, count: end - at - 1))
                return
            }
            searched = i - reader.start
            if searched > Self.rootWindow || !reader.fill(grow: true) { return }
        }
    }

    private mutating func learnPrefixes(_ tag: UnsafeBufferPointer<UInt8>) {
        var nameEnd = 0
        while nameEnd < tag.count, !Self.isSpace(tag[nameEnd]), tag[nameEnd] != 47 { nameEnd += 1 }
        let name = Array(tag[0..<nameEnd])
        if let colon = name.firstIndex(of: 58), Array(name[(colon + 1)...]) == Array("gpx".utf8) {
            let prefix = Array(name[...colon])
            if !prefixes.contains(prefix) { prefixes.append(prefix) }
        }
        // xmlns:P="...topografix.com/GPX/..." declarations.
        var i = nameEnd
        while i < tag.count {
            while i < tag.count, Self.isSpace(tag[i]) { i += 1 }
            let nameStart = i
            while i < tag.count, tag[i] != 61, !Self.isSpace(tag[i]) { i += 1 }
            let attribute = Array(tag[nameStart..<i])
            while i < tag.count, tag[i] != 34, tag[i] != 39 { i += 1 }
            guard i < tag.count else { return }
            let quote = tag[i]
            let valueStart = i + 1
            i = valueStart
            while i < tag.count, tag[i] != quote { i += 1 }
            let value = Array(tag[valueStart..<min(i, tag.count)])
            i += 1
            guard attribute.count > Tag.xmlns.count + 1, Array(attribute[0..<Tag.xmlns.count]) == Tag.xmlns,
                attribute[Tag.xmlns.count] == 58, Self.contains(value, Tag.namespace)
            else { continue }
            let prefix = Array(attribute[(Tag.xmlns.count + 1)...]) + [58]
            if !prefixes.contains(prefix) { prefixes.append(prefix) }
        }
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 32 || c == 9 || c == 10 || c == 13 }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in
            (0..<needle.count).allSatisfy { haystack[start + $0] == needle[$0] }
        }
    }

    /// Positions `reader.start` at the next point's `<` and returns its kind and prefix.
    private func findPointStart() -> (kind: Int, prefix: Int)? {
        let longest = longestStart
        while true {
            let p = reader.buffer
            var i = reader.start
            while i < reader.end {
                guard let lt = memchr(p + i, 60, reader.end - i) else { i = reader.end; break }
                let at = p.distance(to: lt.assumingMemoryBound(to: UInt8.self))
                // Need the tag name and one delimiter after it.
                if reader.end - at < longest, !reader.isAtEOF {
                    i = at
                    break
                }
                for (n, prefix) in prefixes.enumerated() where matches(p, at + 1, prefix) {
                    for (k, name) in Self.kinds.enumerated() where matches(p, at + 1 + prefix.count, name) {
                        let after = at + 1 + prefix.count + name.count
                        guard after < reader.end else { continue }
                        let c = p[after]
                        if Self.isSpace(c) || c == 62 || c == 47 {
                            reader.start = at
                            return (k, n)
                        }
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
    private func findPointEnd(closer close: [UInt8]) -> Int? {
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
            let lon = attribute(startTag, Tag.lon).flatMap(Self.number)
        else {
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
        return Fix(
            time: time, coordinate: coordinate, mode: mode,
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
                (0..<n.count).allSatisfy({ tag[i + $0] == n[$0] })
            {
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

    /// The text of the first `<name>` child in any GPX prefix (`<time>`, `<gpx:time >`,
    /// `<time kind="x">`), trimmed; CDATA sections (`<![CDATA[...]]>`) are read as text.
    private func child(_ body: UnsafeBufferPointer<UInt8>, _ name: [UInt8]) -> UnsafeBufferPointer<UInt8>? {
        guard let base = body.baseAddress else { return nil }
        var i = 0
        while i < body.count, let lt = memchr(base + i, 60, body.count - i) {
            let at = base.distance(to: lt.assumingMemoryBound(to: UInt8.self))
            i = at + 1
            for prefix in prefixes {
                let nameAt = at + 1 + prefix.count
                var j = nameAt + name.count
                guard j < body.count, body[nameAt] == name[0], matches(body, at + 1, prefix),
                    matches(body, nameAt, name),
                    body[j] == 62 || Self.isSpace(body[j])
                else { continue }
                while j < body.count, body[j] != 62 { j += 1 }  // attributes
                guard j < body.count, body[j - 1] != 47 else { return nil }  // <time/>: empty
                return text(body, from: j + 1)
            }
        }
        return nil
    }

    /// An element's text from `start` to the next tag, trimmed; or a CDATA section's content.
    private func text(_ body: UnsafeBufferPointer<UInt8>, from start: Int) -> UnsafeBufferPointer<UInt8> {
        var s = start
        while s < body.count, Self.isSpace(body[s]) { s += 1 }
        var e = s
        if matches(body, s, Tag.cdataOpen) {
            s += Tag.cdataOpen.count
            e = s
            while e < body.count, !matches(body, e, Tag.cdataClose) { e += 1 }
        } else {
            while e < body.count, body[e] != 60 { e += 1 }
        }
        while s < e, Self.isSpace(body[s]) { s += 1 }
        while e > s, Self.isSpace(body[e - 1]) { e -= 1 }
        return UnsafeBufferPointer(rebasing: body[s..<e])
    }

    private func matches(_ body: UnsafeBufferPointer<UInt8>, _ at: Int, _ name: [UInt8]) -> Bool {
        guard at >= 0, at + name.count <= body.count else { return false }
        for (j, c) in name.enumerated() where body[at + j] != c { return false }
        return true
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

import FileAccess
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A recorded walk on disk, NMEA 0183 or GPX, told apart by its content (phones and loggers
/// name files freely: `.txt`, `.log`, `.nmea`, `.gpx`, nothing).
///
/// `fixes()` streams the file through a fixed buffer, so a ten-hour recording costs the same
/// memory as a ten-minute one. The counters of the last complete pass are kept in `statistics`.
public final class TraceFile: Sendable {
    public enum Format: String, Sendable, Hashable, Codable {
        case nmea, gpx
    }

    public let url: URL
    public let format: Format
    /// Bytes read at a time. The default suits any trace; tests and the fuzzer use tiny buffers
    /// so that records straddle refills.
    public let bufferSize: Int
    private let lastStatistics: Mutex<TraceStatistics?>

    /// Opens `url` and detects its format from the first bytes.
    public init(url: URL, bufferSize: Int = 1 << 18) throws(PositioningError) {
        self.url = url
        self.bufferSize = max(16, bufferSize)
        // Each pass reopens the file, so it must be readable twice: a regular file, never a
        // pipe, a terminal or a device (which are refused without being opened).
        let fd: Int32
        do { fd = try InputFile.open(url.path) } catch { throw .cannotOpen(error) }
        let reader = ByteReader(fileDescriptor: fd, capacity: 4096, maxCapacity: 4096)
        reader.fill()
        if reader.readError != 0 { throw .cannotOpen(url.path, errno: reader.readError) }
        guard let format = Self.detect(UnsafeBufferPointer(start: reader.buffer, count: reader.end)) else {
            throw .notATrace(url.path)
        }
        self.format = format
        lastStatistics = Mutex(nil)
    }

    /// The counters of the most recent pass that reached the end of the file.
    public var statistics: TraceStatistics? { lastStatistics.withLock { $0 } }

    public func fixes() -> TraceFixes { TraceFixes(file: self) }

    /// Runs one pass, calling `body` with each fix, and returns the pass's counters.
    public func forEachFix(_ body: (Fix) throws -> Void) rethrows -> TraceStatistics {
        var iterator = fixes().makeIterator()
        while let fix = iterator.next() { try body(fix) }
        return iterator.statistics
    }

    func record(_ statistics: TraceStatistics) {
        lastStatistics.withLock { $0 = statistics }
    }

    /// GPX if the first markup is XML with a `<gpx` element (or `<P:gpx`, namespace-prefixed); NMEA if a line starts with `$`, `!`
    /// or `#` (comments), or a `$` sentence appears in the first block (logs with binary noise).
    static func detect(_ head: UnsafeBufferPointer<UInt8>) -> Format? {
        var i = 0
        if head.count >= 3, head[0] == 0xEF, head[1] == 0xBB, head[2] == 0xBF { i = 3 }
        while i < head.count, head[i] == 32 || head[i] == 9 || head[i] == 10 || head[i] == 13 { i += 1 }
        guard i < head.count else { return nil }
        if head[i] == 60 {  // '<'
            let text = String(decoding: UnsafeBufferPointer(rebasing: head[i...]), as: UTF8.self)
            return text.range(of: #"<([A-Za-z_][A-Za-z0-9_.-]*:)?gpx[\s>/]"#, options: .regularExpression) != nil
                ? .gpx : nil
        }
        if head[i] == 36 || head[i] == 33 || head[i] == 35 { return .nmea }
        // A `$` followed by five letters/digits and a comma, anywhere in the first block.
        var j = 0
        while j + 7 < head.count {
            if head[j] == 36 {
                var ok = true
                for k in 1...5 where !((65...90).contains(head[j + k]) || (48...57).contains(head[j + k])) {
                    ok = false
                }
                if ok, head[j + 6] == 44 { return .nmea }
            }
            j += 1
        }
        return nil
    }
}

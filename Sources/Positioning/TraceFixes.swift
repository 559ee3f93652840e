import FileAccess
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One pass over a `TraceFile`.
public struct TraceFixes: Sequence {
    let file: TraceFile

    public func makeIterator() -> Iterator { Iterator(file: file) }

    /// Yields fixes until the end of the file; then `statistics` holds the pass's counters
    /// (also recorded on the `TraceFile`). A file that cannot be reopened yields nothing and
    /// says why in `statistics.readError`.
    public struct Iterator: IteratorProtocol {
        private let file: TraceFile
        private let reader: ByteReader?
        private var nmea = NMEAParser()
        private var gpx: GPXReader?
        private var finished = false
        private var openError: String?

        init(file: TraceFile) {
            self.file = file
            do {
                let fd = try InputFile.open(file.url.path)
                let reader = ByteReader(fileDescriptor: fd, capacity: file.bufferSize)
                self.reader = reader
                if file.format == .gpx { gpx = GPXReader(reader: reader) }
            } catch {
                reader = nil
                openError = PositioningError.cannotOpen(error).message
            }
        }

        public mutating func next() -> Fix? {
            guard !finished, let reader else {
                if !finished { finish() }
                return nil
            }
            if gpx != nil {
                if let fix = gpx!.next() { return fix }
                finish()
                return nil
            }
            while let line = reader.nextLine() {
                if let fix = nmea.parse(line: line) { return fix }
            }
            let last = nmea.finish()
            finish()
            return last
        }

        private mutating func finish() {
            finished = true
            file.record(statistics)
        }

        public var statistics: TraceStatistics {
            var s = TraceStatistics(format: file.format)
            if let gpx {
                s.records = gpx.counters.points
                s.fixes = gpx.counters.fixes
                if gpx.counters.untimed > 0 { s.rejected["untimed"] = gpx.counters.untimed }
                if gpx.counters.malformed > 0 { s.rejected["malformed"] = gpx.counters.malformed }
            } else {
                s.records = nmea.statistics.sentences
                s.fixes = nmea.statistics.fixes
                s.rejected = nmea.statistics.rejected
                s.nmea = nmea.statistics
            }
            if let openError {
                s.readError = openError
            } else if let reader, reader.readError != 0 {
                s.readError = String(cString: strerror(reader.readError))
            }
            return s
        }
    }
}

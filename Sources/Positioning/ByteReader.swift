#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a file through one fixed buffer, handing out lines (or larger windows) in place.
///
/// Traces can be hours long; a curator's laptop must not hold them in memory, and `preview
/// --fast` must not pay for a `String` per line. The buffer only grows when a single record is
/// longer than it (a GPX point never is; a runaway binary line is cut at `maxCapacity`).
final class ByteReader {
    private let fd: Int32
    private(set) var buffer: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    let maxCapacity: Int
    /// The unread window is `buffer[start..<end]`.
    var start = 0
    private(set) var end = 0
    private(set) var isAtEOF = false
    /// `errno` of a failed read, which ends the stream early.
    private(set) var readError: Int32 = 0

    init(fileDescriptor: Int32, capacity: Int = 1 << 18, maxCapacity: Int = 1 << 24) {
        fd = fileDescriptor
        self.capacity = capacity
        self.maxCapacity = max(capacity, maxCapacity)
        buffer = .allocate(capacity: capacity)
    }

    deinit {
        buffer.deallocate()
        close(fd)
    }

    /// Moves the unread bytes to the front and reads more. False at end of file (or error) or
    /// when the buffer is full and may not grow.
    @discardableResult
    func fill(grow: Bool = false) -> Bool {
        guard !isAtEOF else { return false }
        if start > 0 {
            if end > start { memmove(buffer, buffer + start, end - start) }
            end -= start
            start = 0
        }
        if end == capacity {
            guard grow, capacity < maxCapacity else { return false }
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: min(capacity * 2, maxCapacity))
            bigger.update(from: buffer, count: end)
            buffer.deallocate()
            buffer = bigger
            capacity = min(capacity * 2, maxCapacity)
        }
        while true {
            let n = read(fd, buffer + end, capacity - end)
            if n > 0 {
                end += n
                return true
            }
            if n < 0, errno == EINTR { continue }
            if n < 0 { readError = errno }
            isAtEOF = true
            return false
        }
    }

    /// The next line without its `\n`, or nil at end of file. A line longer than the buffer is
    /// returned in buffer-sized pieces: NMEA sentences are at most 82 bytes, so such a line is
    /// noise either way.
    func nextLine() -> UnsafeBufferPointer<UInt8>? {
        while true {
            if start < end, let nl = memchr(buffer + start, 10, end - start) {
                let index = buffer.distance(to: nl.assumingMemoryBound(to: UInt8.self))
                let line = UnsafeBufferPointer(start: buffer + start, count: index - start)
                start = index + 1
                return line
            }
            if !fill() {
                guard start < end else { return nil }
                let line = UnsafeBufferPointer(start: buffer + start, count: end - start)
                start = end
                return line
            }
        }
    }
}

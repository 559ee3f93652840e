import HTTPTypes
import Hummingbird
import NIOCore

/// Paces a body to at most `bytesPerSecond` (the throttle fault): slices of a tenth of a second's
/// worth, each sent when the average rate allows, so a client sees a slow link rather than bursts.
struct PacedBodyWriter: ResponseBodyWriter {
    var inner: any ResponseBodyWriter
    let bytesPerSecond: Int
    /// When the next slice may go. A reader that stopped taking bytes (or a server that was
    /// stopped) does not earn a burst that catches up on the pause: the schedule is never more
    /// than one slice behind now, as a slow link's is not.
    private var due = ContinuousClock.now

    init(inner: any ResponseBodyWriter, bytesPerSecond: Int) {
        self.inner = inner
        self.bytesPerSecond = max(1, bytesPerSecond)
    }

    mutating func write(_ buffer: ByteBuffer) async throws {
        let slice = max(1, bytesPerSecond / 10)
        var offset = 0
        while offset < buffer.readableBytes {
            let length = min(slice, buffer.readableBytes - offset)
            guard let part = buffer.getSlice(at: buffer.readerIndex + offset, length: length) else { break }
            try await inner.write(part)
            offset += length
            let now = ContinuousClock.now
            let slot = Duration.nanoseconds(Int64(Double(length) / Double(bytesPerSecond) * 1e9))
            due = max(due, now - slot) + slot
            if due > now { try await Task.sleep(until: due, clock: .continuous) }
        }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await inner.finish(trailingHeaders)
    }
}

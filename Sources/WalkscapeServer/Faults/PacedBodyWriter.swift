import HTTPTypes
import Hummingbird
import NIOCore

/// Paces a body to at most `bytesPerSecond` (the throttle fault): slices of a tenth of a second's
/// worth, each sent when the average rate allows, so a client sees a slow link rather than bursts.
struct PacedBodyWriter: ResponseBodyWriter {
    var inner: any ResponseBodyWriter
    let bytesPerSecond: Int
    private let start = ContinuousClock.now
    private var sent = 0

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
            sent += length
            let due = start + .nanoseconds(Int64(Double(sent) / Double(bytesPerSecond) * 1e9))
            if due > .now { try await Task.sleep(until: due, clock: .continuous) }
        }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await inner.finish(trailingHeaders)
    }
}

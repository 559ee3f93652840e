import HTTPTypes
import Hummingbird
import NIOCore

/// Passes the first `remaining` bytes of a body on, then closes the connection under the client:
/// the reset fault. The client has a status line, headers and part of the body, and then nothing.
struct CuttingBodyWriter: ResponseBodyWriter {
    struct ConnectionCut: Error {}

    var inner: any ResponseBodyWriter
    var remaining: Int
    let channel: any Channel

    mutating func write(_ buffer: ByteBuffer) async throws {
        if buffer.readableBytes < remaining {
            remaining -= buffer.readableBytes
            try await inner.write(buffer)
            return
        }
        if remaining > 0, let head = buffer.getSlice(at: buffer.readerIndex, length: remaining) {
            try await inner.write(head)
        }
        remaining = 0
        try? await channel.close()
        throw ConnectionCut()
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        if remaining == 0 {
            // A body that ended exactly at the cut (or an empty one): still cut, before the end.
            try? await channel.close()
            throw ConnectionCut()
        }
        try await inner.finish(trailingHeaders)
    }
}

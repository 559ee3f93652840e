import Foundation
import NIOCore

/// A piece of a response body as it arrived from the connection, read in place: a download
/// writes and hashes each piece without copying it first.
public struct BodyChunk: Sendable, ExpressibleByArrayLiteral {
    private let buffer: ByteBuffer

    public init(_ bytes: some Sequence<UInt8>) { buffer = ByteBuffer(bytes: bytes) }
    public init(arrayLiteral bytes: UInt8...) { self.init(bytes) }
    init(buffer: ByteBuffer) { self.buffer = buffer }

    public var count: Int { buffer.readableBytes }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try buffer.withUnsafeReadableBytes(body)
    }
}

/// A response body as an asynchronous sequence of byte chunks, read once. Errors while reading are
/// `TransportError`s (a stalled or broken connection mid-body).
public struct ResponseBody: AsyncSequence, Sendable {
    public typealias Element = BodyChunk

    public struct AsyncIterator: AsyncIteratorProtocol {
        private var pull: () async throws -> BodyChunk?

        public init(pull: @escaping () async throws -> BodyChunk?) {
            self.pull = pull
        }

        public mutating func next() async throws -> BodyChunk? { try await pull() }
    }

    private let iterate: @Sendable () -> AsyncIterator
    private let once = Once()

    /// `iterate` makes the one iterator that reads the body.
    public init(_ iterate: @escaping @Sendable () -> AsyncIterator) {
        self.iterate = iterate
    }

    /// The body's one reader; any later one reads nothing. (AsyncHTTPClient traps when asked for a
    /// second iterator, as `discard()` after a read would.)
    public func makeAsyncIterator() -> AsyncIterator { once.take() ? iterate() : AsyncIterator { nil } }

    /// Whether the body has been (or is being) read.
    public var isTaken: Bool { once.isTaken }

    private final class Once: @unchecked Sendable {
        private let lock = NSLock()
        private var taken = false
        func take() -> Bool {
            lock.withLock {
                defer { taken = true }; return !taken
            }
        }
        var isTaken: Bool { lock.withLock { taken } }
    }

    public static let empty = ResponseBody { AsyncIterator { nil } }

    /// A body already in memory, in one chunk.
    public static func bytes(_ data: Data) -> ResponseBody {
        ResponseBody {
            var sent = data.isEmpty
            return AsyncIterator {
                if sent { return nil }
                sent = true
                return BodyChunk(data)
            }
        }
    }

    /// The whole body. More than `limit` bytes is refused: an API answer is small, and a huge one
    /// is a mistake or an attack, not something to hold in memory.
    public func collect(upTo limit: Int) async throws(TransportError) -> Data {
        var data = Data()
        do {
            for try await chunk in self {
                guard data.count + chunk.count <= limit else {
                    throw TransportError(.tooLarge, "the answer is larger than \(limit) bytes")
                }
                chunk.withUnsafeBytes { data.append(contentsOf: $0) }
            }
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(.connectionLost, String(describing: error))
        }
        return data
    }

    /// Reads and drops what is left (up to `limit` bytes), so the connection can carry the next
    /// request; errors are ignored because the answer was already judged.
    public func discard(upTo limit: Int = 64 * 1024) async {
        _ = try? await collect(upTo: limit)
    }
}

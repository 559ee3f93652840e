import FileAccess
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Answers a GET or HEAD for one served file, as S3 does: `ETag`, `Last-Modified`, `Accept-Ranges`,
/// single `Range`s (206, or 416 with `Content-Range: bytes */SIZE`), `If-Range` (by ETag or date),
/// `If-None-Match` (304). The body is streamed from disk in chunks; a file is never loaded whole.
struct MediaFileResponse {
    // Each chunk costs a hop to the file thread pool and one to the event loop: 512 KiB moved a 200 MB
    // file on loopback faster than 256 KiB did; 1 MiB was no faster and its peak memory crept up.
    static let chunkLength = 512 * 1024

    let entry: MediaEntry
    /// The real path of the tour folder: the file's real path must stay under it.
    let rootRealPath: String
    let throttle: Int
    /// The connection: its event loop takes the body's writes, and it is closed when its client
    /// takes nothing for `stallTimeout`.
    let channel: any Channel
    /// How long a client may take no chunk before its answer is given up (4 × the idle timeout).
    let stallTimeout: TimeAmount
    /// Answers streaming at once: one past the limit is told to try again.
    let budget: MediaBudget
    /// Where a file that ends before its declared length is reported.
    let logger: Logger

    /// The file ended before the length its answer declared (it shrank while it was served).
    struct EndedShort: Error {}

    /// When the client last took something, and how many bytes it had acknowledged then; whether
    /// the answer is over (its watchdog has nothing left to watch).
    struct Progress {
        var at: NIODeadline
        var acknowledged: UInt64?
        var finished: Bool
    }

    /// The bytes a client must acknowledge within the stall timeout to keep its answer (and its
    /// place among the downloads): about 550 bytes a second at the default 2 minutes.
    static let minimumProgress: UInt64 = 64 << 10

    func make(for request: Request, head: Bool) throws -> Response {
        // Resolved again now: a symlink swapped in since the tour was loaded must not lead out.
        guard let real = realPath(entry.file.path), real.hasPrefix(rootRealPath + "/"),
            let stamp = FileStamp.of(real), stamp.isRegularFile
        else {
            throw S3Error.noSuchKey(entry.relativePath)
        }
        let size = stamp.size
        let etag = stamp.etag
        let lastModified = HTTPDate.format(stamp.modified)
        var headers: HTTPFields = [
            .acceptRanges: "bytes", .eTag: etag, .lastModified: lastModified, .contentType: entry.contentType,
        ]
        if let match = request.headers[.ifNoneMatch] {
            let tags = match.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if tags.contains("*") || tags.contains(etag) || tags.contains("W/" + etag) {
                return Response(status: .notModified, headers: headers)
            }
        } else if let since = request.headers[.ifModifiedSince].flatMap(HTTPDate.parse),
            Int(since.timeIntervalSince1970) >= stamp.modifiedSeconds
        {
            return Response(status: .notModified, headers: headers)
        }

        var range = ByteRange.parse(request.headers[.range], size: size)
        if let condition = request.headers[.ifRange]?.trimmingCharacters(in: .whitespaces) {
            // Only an unchanged file may be resumed; otherwise the whole (new) file is sent.
            let unchanged = condition.hasPrefix("\"") ? condition == etag : condition == lastModified
            if !unchanged { range = .whole }
        }
        let bytes: ClosedRange<Int64>?
        let status: HTTPResponse.Status
        switch range {
        case .unsatisfiable:
            throw S3Error.invalidRange(size: size)
        case .partial(let r):
            bytes = r
            status = .partialContent
            headers[.contentRange] = "bytes \(r.lowerBound)-\(r.upperBound)/\(size)"
        case .whole:
            bytes = size > 0 ? 0...(size - 1) : nil
            status = .ok
        }
        let length = bytes.map { Int($0.upperBound - $0.lowerBound + 1) } ?? 0
        headers[.contentLength] = String(length)
        guard !head, let bytes else { return Response(status: status, headers: headers) }
        guard budget.take() else { throw S3Error.slowDown }
        let opened: OpenedMedia
        do { opened = try OpenedMedia(real, holding: budget) } catch {
            // Out of descriptors is the server's state, not the file's: the client tries again.
            if case .system(let code) = error.cause, code == EMFILE || code == ENFILE { throw S3Error.slowDown }
            throw S3Error.noSuchKey(entry.relativePath)
        }
        let throttle = self.throttle
        let channel = self.channel
        let loop = channel.eventLoop
        let stallTimeout = self.stallTimeout
        let logger = self.logger
        let name = entry.relativePath
        let body = ResponseBody(contentLength: length) { writer in
            var out: any ResponseBodyWriter =
                throttle > 0 ? PacedBodyWriter(inner: writer, bytesPerSecond: throttle) : writer
            var sent = 0
            // A client that takes nothing for the stall timeout (one that never reads) is given
            // up: its connection is closed, which ends the write waiting on it and frees its place
            // (MediaBudget) and its file. Taking something is a chunk handed to the socket, or
            // `minimumProgress` bytes the client acknowledged (TCP_INFO): a slow reader may take
            // minutes over a chunk, and counting chunks alone cut off every client slower than
            // about 4 kB/s; a trickle of a segment now and then holds no place for long.
            let progress = NIOLockedValueBox(Progress(at: .now(), acknowledged: nil, finished: false))
            let look = TimeAmount.nanoseconds(max(1_000_000, stallTimeout.nanoseconds / 4))
            let watchdog = loop.scheduleRepeatedTask(initialDelay: look, delay: look) { task in
                AcknowledgedBytes.of(channel).whenComplete { outcome in
                    let now = NIODeadline.now()
                    let acknowledged = (try? outcome.get()) ?? nil
                    let stalled = progress.withLockedValue { state in
                        guard !state.finished else { return false }
                        if let acknowledged {
                            // The first count is where the client stands, not something it took.
                            if let before = state.acknowledged {
                                if acknowledged >= before + Self.minimumProgress {
                                    (state.at, state.acknowledged) = (now, acknowledged)
                                }
                            } else {
                                state.acknowledged = acknowledged
                            }
                        }
                        return now - state.at > stallTimeout
                    }
                    guard stalled else { return }
                    task.cancel()
                    logger.notice(
                        "media client took nothing for the stall timeout: the connection is closed",
                        metadata: ["file": "\(name)"])
                    channel.close(promise: nil)
                }
            }
            defer {
                // A look under way must not close the connection once this answer is done with it.
                progress.withLockedValue { $0.finished = true }
                watchdog.cancel()
            }
            // One chunk is read ahead while the one before is written, no more (NIO's file chunk
            // sequence read up to eight ahead: 4 MiB held for a client that never reads).
            let end = bytes.upperBound + 1
            var next = try await opened.chunk(at: bytes.lowerBound, before: end, length: Self.chunkLength)
            while let chunk = next {
                sent += chunk.readableBytes
                let offset = bytes.lowerBound + Int64(sent)
                async let following = opened.chunk(at: offset, before: end, length: Self.chunkLength)
                try await out.write(chunk)
                // A write only queues the chunk for the event loop; the connection's backpressure
                // is felt once the loop has handed it to the socket. Waiting for the loop to get
                // this far keeps at most a chunk or two in memory, even when the loop is starved
                // of CPU (without it, a busy machine saw the whole file pile up in the queue).
                try await loop.submit {}.get()
                progress.withLockedValue { $0.at = .now() }
                next = try await following
            }
            // A file that shrank while it was served: the connection is closed now (the client
            // sees a short body and can resume), not held until the idle timeout.
            guard sent == length else {
                logger.error(
                    "media file ended before its declared length: the connection is closed",
                    metadata: ["file": "\(name)", "declared": "\(length)", "sent": "\(sent)"])
                throw EndedShort()
            }
            try await out.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }
}

/// A media file opened for one answer, without blocking, and checked through the descriptor to be a
/// regular file: a file swapped for a FIFO after the checks by path (`renameat2` can swap them at
/// once) blocked a thread of the file pool on its open, and two such stopped every media download
/// until something opened the FIFO for writing. Read through that descriptor alone (one per
/// answer: reopening it by its /proc name took a second), on the blocking pool; closed when the
/// answer lets it go.
final class OpenedMedia: Sendable {
    let descriptor: Int32
    /// The place taken for this answer, given back with the file.
    private let budget: MediaBudget?

    /// `path` opened, if it is a regular file (`InputFile.open`: a FIFO or a device is refused, not
    /// waited on). `budget`: a place already taken, given back when the file closes (or now, if
    /// it cannot be opened).
    init(_ path: String, holding budget: MediaBudget? = nil) throws(FileAccessError) {
        do { descriptor = try InputFile.open(path) } catch {
            budget?.give()
            throw error
        }
        self.budget = budget
    }

    deinit {
        close(descriptor)
        budget?.give()
    }

    /// Up to `length` bytes from `offset`, not past `end`; nil at `end` or where the file ends.
    func chunk(at offset: Int64, before end: Int64, length: Int) async throws -> ByteBuffer? {
        guard offset < end else { return nil }
        let wanted = Int(min(Int64(length), end - offset))
        return try await NIOThreadPool.singleton.runIfActive { [self] in
            var buffer = ByteBufferAllocator().buffer(capacity: wanted)
            let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: wanted) { raw in
                let outcome = Descriptor.readUpTo(
                    descriptor, into: UnsafeMutableRawBufferPointer(rebasing: raw[..<wanted]), at: offset)
                guard outcome.succeeded else { throw IOError(errnoCode: outcome.error, reason: "pread") }
                return outcome.written
            }
            return read > 0 ? buffer : nil
        }
    }
}

/// The bytes a connection's peer has acknowledged so far: TCP_INFO's `tcpi_bytes_acked` (Linux
/// 4.1), which glibc's `tcp_info` does not have (its struct stops earlier). Nil where the channel
/// is not a TCP socket or the kernel does not say.
enum AcknowledgedBytes {
    /// The kernel's `struct tcp_info` up to and with `tcpi_bytes_acked`, at byte 120 of it.
    struct Prefix: Sendable {
        var words:
            (
                UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                UInt64, UInt64, UInt64
            ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    }

    static func of(_ channel: any Channel) -> EventLoopFuture<UInt64?> {
        guard let socket = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let info: EventLoopFuture<Prefix> = socket.unsafeGetSocketOption(level: .tcp, name: .tcp_info)
        // A kernel without the field leaves it 0: nothing is known from it.
        return info.map { $0.words.15 == 0 ? nil : $0.words.15 }
    }
}

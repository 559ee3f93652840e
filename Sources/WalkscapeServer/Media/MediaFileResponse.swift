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
    /// The connection: its event loop takes the body's writes. A client that takes nothing of the
    /// answer is given up by the connection's own rule (`ConnectionGate`), which frees the file and
    /// its place.
    let channel: any Channel
    /// Answers streaming at once: one past the limit is told to try again.
    let budget: MediaBudget
    /// Where a file that ends before its declared length is reported.
    let logger: Logger

    /// The file ended before the length its answer declared (it shrank while it was served).
    struct EndedShort: Error {}

    /// The file as it is now: its real path and stamp. Resolved again: a symlink swapped in since
    /// the tour was loaded must not lead out.
    func current() throws -> (real: String, stamp: FileStamp) {
        guard let real = realPath(entry.file.path), real.hasPrefix(rootRealPath + "/"),
            let stamp = FileStamp.of(real), stamp.isRegularFile
        else {
            throw S3Error.noSuchKey(entry.relativePath)
        }
        return (real, stamp)
    }

    /// The answer for the file as `current()` found it.
    func make(for request: Request, head: Bool, file: (real: String, stamp: FileStamp)) throws -> Response {
        let (real, stamp) = file
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
            Int(since.timeIntervalSince1970) >= stamp.modifiedSeconds,
            // A date after this server's clock is no date (RFC 7232, 3.3): the file is sent.
            since <= Date()
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
        let logger = self.logger
        let name = entry.relativePath
        let body = ResponseBody(contentLength: length) { writer in
            var out: any ResponseBodyWriter =
                throttle > 0 ? PacedBodyWriter(inner: writer, bytesPerSecond: throttle) : writer
            var sent = 0
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

import CMPG123
import FileAccess
import Foundation
import TourModel

#if canImport(Glibc)
    import Glibc
#endif

/// Decodes one MPEG audio stream (a file or a blob in memory) with libmpg123 to signed 16-bit
/// interleaved PCM at the stream's own rate and channel count, gaplessly (encoder delay and padding
/// from the LAME tag are trimmed, so the PCM has exactly the samples the encoder was given).
///
/// Not thread-safe: one decoder belongs to one thread (the playback thread, or a probe's caller).
public final class MP3Decoder: AudioDecoder {
    /// The PCM the decoder produces, fixed for the stream: what follows a part-way change of
    /// format (files carelessly concatenated) is converted to it (`splice`).
    public let format: PCMFormat
    /// The file path (or the name a blob was given), for messages.
    public let name: String
    /// PCM frames handed out so far.
    public private(set) var framesDecoded = 0
    /// Set when the stream ended before its tag said it would, or with damage libmpg123 could not
    /// skip: playback plays what there is and reports this line.
    public private(set) var damage: String?

    private let handle: OpaquePointer
    private let report: MediaSniffer.Report
    /// Keeps the reader (a blob or a buffered file) alive while libmpg123 reads from it.
    private var reader: AnyObject?
    private var finished = false
    /// The frames a trustworthy Info tag promises (gapless), read before decoding: libmpg123's
    /// own count becomes what was decoded once it ends.
    private var promisedFrames: Int?
    /// Where `nextChunk()` decodes to: 2048 frames.
    private let output: UnsafeMutableRawBufferPointer
    /// A message from libmpg123 that arrived together with data, to act on at the next call.
    private var deferredResult: Int32?
    /// Set while the frames found are of another format than the stream's: after damaged bytes
    /// libmpg123 may take garbage for a frame header (another rate, stereo), and what it decodes
    /// then is dropped until frames of the stream's format come again. The first such format is
    /// kept to tell of.
    private var foreign: PCMFormat?
    private var foreignSeen: PCMFormat?
    /// The foreign frames' PCM while it is not yet known to be another stream spliced in.
    private var held = Data()
    /// Set once frames of another format have lasted `spliceSeconds`: files carelessly concatenated
    /// (a 22.05 kHz mono intro, a 44.1 kHz stereo body). From there on they are converted to the
    /// stream's format and play; garbage taken for frames after damage lasts far less.
    private var spliced: SampleConverter?
    private var splicedFlushed = false
    static let spliceSeconds = 0.5

    /// Opens the MP3 file at `url`. Throws when it is missing, empty, or not MPEG audio.
    public convenience init(contentsOf url: URL) throws(PlaybackError) {
        let path = url.path
        // One descriptor for the sniffing and the decoding, opened only if it is a regular file.
        let fd: Int32
        do { fd = try InputFile.open(path) } catch { throw PlaybackError(input: error) }
        let reader = BufferedFileReader(fd: fd)
        let report = MediaSniffer.report(fileDescriptor: fd)
        try Self.check(report, path: path)
        try self.init(name: path, report: report) { handle throws(PlaybackError) in
            // libmpg123's own reader issues two read(2) calls per MPEG frame (header, body); reading
            // through a 64 KiB buffer instead cuts the system calls of a long file by ~100x.
            guard
                mpg123_replace_reader_handle(handle, BufferedFileReader.read, BufferedFileReader.seek, nil)
                    == MPG123_OK.rawValue,
                mpg123_open_handle(handle, Unmanaged.passUnretained(reader).toOpaque()) == MPG123_OK.rawValue
            else {
                throw PlaybackError.decodeFailed(path: path, reason: Self.errorText(handle))
            }
            return reader
        }
    }

    /// Opens an MP3 held in memory; `name` is used in messages.
    public convenience init(data: Data, name: String = "<memory>") throws(PlaybackError) {
        let report = data.withUnsafeBytes { MediaSniffer.report($0, fileSize: data.count, baseOffset: 0) }
        try Self.check(report, path: name)
        try self.init(name: name, report: report) { handle throws(PlaybackError) in
            let reader = BlobReader(data)
            guard mpg123_replace_reader_handle(handle, BlobReader.read, BlobReader.seek, nil) == MPG123_OK.rawValue,
                mpg123_open_handle(handle, Unmanaged.passUnretained(reader).toOpaque()) == MPG123_OK.rawValue
            else {
                throw PlaybackError.decodeFailed(path: name, reason: Self.errorText(handle))
            }
            return reader
        }
    }

    private init(
        name: String, report: MediaSniffer.Report,
        open: (OpaquePointer) throws(PlaybackError) -> AnyObject?
    ) throws(PlaybackError) {
        self.name = name
        self.report = report
        var error: Int32 = 0
        guard let handle = mpg123_new(nil, &error) else {
            throw PlaybackError.decodeFailed(path: name, reason: String(cString: mpg123_plain_strerror(error)))
        }
        self.handle = handle
        do throws(PlaybackError) {
            let flags = Int(MPG123_QUIET.rawValue | MPG123_GAPLESS.rawValue)
            mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), flags, 0)
            // Damaged bytes mid-file (a run of zeros, garbage) are skipped to the next frame as far
            // as they go: libmpg123 gave up after 1 KiB and the narration stopped there, where
            // FFmpeg plays on. What was skipped is told at the end (`end`).
            mpg123_param2(handle, Int32(MPG123_RESYNC_LIMIT.rawValue), -1, 0)
            // Only s16 at the stream's native rate: libmpg123's own resampler is crude; ALSA's is better.
            mpg123_format_none(handle)
            var rates: UnsafePointer<Int>?
            var count = 0
            mpg123_rates(&rates, &count)
            for i in 0..<count {
                mpg123_format(
                    handle, rates![i], Int32(MPG123_MONO.rawValue | MPG123_STEREO.rawValue),
                    Int32(MPG123_ENC_SIGNED_16.rawValue))
            }
            reader = try open(handle)
            var rate = 0, channels: Int32 = 0, encoding: Int32 = 0
            guard mpg123_getformat(handle, &rate, &channels, &encoding) == MPG123_OK.rawValue else {
                throw PlaybackError.unsupported(path: name, kind: .unknown)
            }
            format = PCMFormat(sampleRate: rate, channels: Int(channels))
        } catch {
            mpg123_close(handle)
            mpg123_delete(handle)
            throw error
        }
        output = .allocate(byteCount: 2048 * format.bytesPerFrame, alignment: 16)
        if tagIsTrustworthy {
            let length = mpg123_length(handle)
            promisedFrames = length > 0 ? Int(length) : nil
        }
    }

    deinit {
        mpg123_close(handle)
        mpg123_delete(handle)
        output.deallocate()
    }

    private static func check(_ report: MediaSniffer.Report, path: String) throws(PlaybackError) {
        switch report.kind {
        case .mp3: return
        case .empty: throw .emptyFile(path: path)
        case .unreadable: throw .unreadable(path: path, reason: "read error")
        default: throw .unsupported(path: path, kind: report.kind, detail: "not MPEG audio")
        }
    }

    private static func errorText(_ handle: OpaquePointer) -> String {
        String(cString: mpg123_strerror(handle))
    }

    /// True when the stream's Info tag promises a length the file can actually hold.
    private var tagIsTrustworthy: Bool {
        guard let xing = report.xing, xing.frames != nil, let first = report.firstFrameOffset else { return false }
        if let bytes = xing.bytes {
            // Fewer bytes: truncated. Many more than a trailing tag: another stream follows (files
            // concatenated), whose frames the first one's tag does not count.
            let after = report.fileSize - first - bytes
            return after >= 0 && after <= Self.trailingTagBytes
        }
        return true
    }

    /// What may follow the frames an Info tag counts and still be tags (ID3v1, APE, Lyrics3).
    static let trailingTagBytes = 4096

    /// The exact number of PCM frames the stream decodes to (gapless). Read from the LAME/Info tag
    /// when it has one that the file size agrees with, so probing a long file costs microseconds.
    /// Without a tag every frame header is parsed (no decoding). A tag the file size contradicts
    /// (a truncated download) says neither where the audio ends nor how much of the encoder's
    /// padding is gone, so that rare file is decoded and counted. Call before decoding starts.
    public func exactFrameCount() throws(PlaybackError) -> Int {
        if tagIsTrustworthy || report.xing == nil {
            if !tagIsTrustworthy {
                guard mpg123_scan(handle) == MPG123_OK.rawValue else {
                    throw PlaybackError.decodeFailed(path: name, reason: Self.errorText(handle))
                }
            }
            let length = mpg123_length(handle)
            guard length >= 0 else { throw PlaybackError.decodeFailed(path: name, reason: Self.errorText(handle)) }
            return Int(length)
        }
        while try nextChunk() != nil {}
        let frames = framesDecoded
        try seek(toFrame: 0)
        damage = nil
        return frames
    }

    /// Decodes the next piece of PCM (about 2048 frames) and returns it, or nil at the end.
    /// The buffer belongs to the decoder and is valid until the next call; the caller may change the
    /// samples in place (volume, fades). Pieces of a couple of thousand frames rather than one
    /// MPEG frame halve the device calls per second without making pause or skip less prompt.
    public func nextChunk() throws(PlaybackError) -> UnsafeMutableRawBufferPointer? {
        guard !finished else { return nil }
        while true {
            let result: Int32
            if let deferred = deferredResult {
                result = deferred
                deferredResult = nil
            } else {
                var done = 0
                result = mpg123_read(handle, output.baseAddress, output.count, &done)
                if done > 0 {
                    // Data comes first; a message that came with it (done, new format) is handled next call.
                    if result != MPG123_OK.rawValue { deferredResult = result }
                    let pcm = UnsafeMutableRawBufferPointer(rebasing: output[0..<done])
                    if let foreign {
                        // Not the stream's: held until it is known to be another stream spliced in.
                        guard let chunk = try splice(pcm, foreign: foreign) else { continue }
                        framesDecoded += chunk.count / format.bytesPerFrame
                        return chunk
                    }
                    framesDecoded += done / format.bytesPerFrame
                    return pcm
                }
            }
            switch result {
            case MPG123_OK.rawValue:
                continue
            case MPG123_NEW_FORMAT.rawValue:
                var rate = 0, channels: Int32 = 0, encoding: Int32 = 0
                mpg123_getformat(handle, &rate, &channels, &encoding)
                let found = PCMFormat(sampleRate: rate, channels: Int(channels))
                if found != foreign { dropHeld() }
                // Not the stream's format: garbage taken for frames, or another stream spliced in
                // (`splice`). libmpg123 goes on either way.
                foreign = found != format ? found : nil
                continue
            case MPG123_DONE.rawValue, MPG123_NEED_MORE.rawValue:
                // What the splice's converter still holds (a resampler's last samples), once.
                if let spliced, !splicedFlushed {
                    splicedFlushed = true
                    if let tail = try spliced.convert(nil), !tail.isEmpty {
                        framesDecoded += tail.count / format.bytesPerFrame
                        return tail
                    }
                }
                return end(damage: nil)
            default:
                let reason = Self.errorText(handle)
                if framesDecoded == 0 { throw PlaybackError.decodeFailed(path: name, reason: reason) }
                return end(damage: "decoding stopped early (\(reason))")
            }
        }
    }

    /// Foreign frames' PCM: held while they have lasted less than `spliceSeconds`, then (with all
    /// that was held) converted to the stream's format; nil while held.
    private func splice(
        _ pcm: UnsafeMutableRawBufferPointer, foreign: PCMFormat
    ) throws(PlaybackError) -> UnsafeMutableRawBufferPointer? {
        if let spliced { return try spliced.convert(pcm) }
        held.append(contentsOf: UnsafeRawBufferPointer(pcm))
        let seconds = Double(held.count / foreign.bytesPerFrame) / Double(foreign.sampleRate)
        guard seconds >= Self.spliceSeconds else { return nil }
        let converter = try SampleConverter(from: foreign, to: format, keepingLoudness: true)
        spliced = converter
        splicedFlushed = false
        let all = UnsafeMutableRawBufferPointer.allocate(byteCount: held.count, alignment: 16)
        defer { all.deallocate() }
        all.copyBytes(from: held)
        held = Data()
        return try converter.convert(all)
    }

    /// Foreign frames that did not last (garbage after damage) are dropped, and told of.
    private func dropHeld() {
        if !held.isEmpty, let foreign, foreignSeen == nil { foreignSeen = foreign }
        held = Data()
        spliced = nil
    }

    private func end(damage explicit: String?) -> UnsafeMutableRawBufferPointer? {
        finished = true
        if spliced == nil { dropHeld() }
        if let explicit {
            damage = explicit
        } else if let foreign, spliced == nil {
            damage = "the stream changes to \(foreign) part-way and does not come back; stopped there"
        } else if let xing = report.xing, let first = report.firstFrameOffset,
            let bytes = xing.bytes, report.fileSize - first < bytes
        {
            let missing = bytes - (report.fileSize - first)
            let seconds = Double(framesDecoded) / Double(format.sampleRate)
            damage =
                "the file is truncated (\(missing) bytes missing); played the first "
                + String(format: "%.2f", seconds) + " s"
        } else if let promisedFrames {
            // Whole, yet fewer frames than its tag promises: damaged frames were skipped.
            let missing = Double(promisedFrames - framesDecoded) / Double(format.sampleRate)
            if missing >= Self.skippedWorthSaying {
                let played = Double(framesDecoded) / Double(format.sampleRate)
                damage =
                    "damaged frames skipped: " + String(format: "%.2f", missing)
                    + " s of the narration could not be decoded; played " + String(format: "%.2f", played) + " s"
            }
        }
        if damage == nil, let foreignSeen {
            damage = "frames of another format (\(foreignSeen)) found part-way were skipped"
        }
        return nil
    }

    /// Less than this short of the tag's length is the encoder's rounding, not damage (seconds).
    static let skippedWorthSaying = 0.1

    /// libmpg123 folds the factor into its synthesis window: the levelled PCM costs nothing more
    /// than the unlevelled, rounded once, and saturates at full scale as the queue's scaling does.
    public func applyLevel(_ factor: Float) -> Bool {
        mpg123_volume(handle, Double(factor)) == MPG123_OK.rawValue
    }

    /// Moves to PCM frame `frame` (sample-accurate: libmpg123 decodes from an earlier frame and
    /// discards up to the target).
    public func seek(toFrame frame: Int) throws(PlaybackError) {
        let result = mpg123_seek(handle, off_t(frame), SEEK_SET)
        guard result >= 0 else { throw PlaybackError.decodeFailed(path: name, reason: Self.errorText(handle)) }
        framesDecoded = Int(result)
        finished = false
        deferredResult = nil
        foreign = nil  // the frame sought is the stream's
        held = Data()
        spliced = nil
    }
}

/// A blob in memory, read by libmpg123 through replaced reader callbacks.
private final class BlobReader {
    let data: Data
    var position = 0

    init(_ data: Data) { self.data = data }

    static let read: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int) -> Int = {
        context, buffer, count in
        guard let context, let buffer else { return -1 }
        let reader = Unmanaged<BlobReader>.fromOpaque(context).takeUnretainedValue()
        let n = max(0, min(count, reader.data.count - reader.position))
        reader.data.withUnsafeBytes { source in
            buffer.copyMemory(from: source.baseAddress! + reader.position, byteCount: n)
        }
        reader.position += n
        return n
    }

    static let seek: @convention(c) (UnsafeMutableRawPointer?, off_t, Int32) -> off_t = { context, offset, whence in
        guard let context else { return -1 }
        let reader = Unmanaged<BlobReader>.fromOpaque(context).takeUnretainedValue()
        let target: Int
        switch whence {
        case SEEK_SET: target = Int(offset)
        case SEEK_CUR: target = reader.position + Int(offset)
        case SEEK_END: target = reader.data.count + Int(offset)
        default: return -1
        }
        guard target >= 0, target <= reader.data.count else { return -1 }
        reader.position = target
        return off_t(target)
    }
}

/// A file read through a 64 KiB buffer, for libmpg123's replaced reader callbacks.
private final class BufferedFileReader {
    static let capacity = 64 * 1024
    let fd: Int32
    let size: Int
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: BufferedFileReader.capacity, alignment: 16)
    /// The file offset of `buffer[0]`, and how many bytes of the buffer are valid.
    var bufferStart = 0
    var bufferCount = 0
    var position = 0

    /// Takes over `fd`, an open regular file.
    init(fd: Int32) {
        self.fd = fd
        var info = stat()
        size = fstat(fd, &info) == 0 ? Int(info.st_size) : 0
    }

    deinit {
        close(fd)
        buffer.deallocate()
    }

    static let read: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int) -> Int = {
        context, destination, count in
        guard let context, let destination else { return -1 }
        let reader = Unmanaged<BufferedFileReader>.fromOpaque(context).takeUnretainedValue()
        var copied = 0
        while copied < count {
            let offset = reader.position - reader.bufferStart
            if offset >= 0 && offset < reader.bufferCount {
                let n = min(count - copied, reader.bufferCount - offset)
                (destination + copied).copyMemory(from: reader.buffer + offset, byteCount: n)
                copied += n
                reader.position += n
                continue
            }
            let got = pread(reader.fd, reader.buffer, capacity, off_t(reader.position))
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return copied > 0 ? copied : (got < 0 ? -1 : 0) }
            reader.bufferStart = reader.position
            reader.bufferCount = got
        }
        return copied
    }

    static let seek: @convention(c) (UnsafeMutableRawPointer?, off_t, Int32) -> off_t = { context, offset, whence in
        guard let context else { return -1 }
        let reader = Unmanaged<BufferedFileReader>.fromOpaque(context).takeUnretainedValue()
        let target: Int
        switch whence {
        case SEEK_SET: target = Int(offset)
        case SEEK_CUR: target = reader.position + Int(offset)
        case SEEK_END: target = reader.size + Int(offset)
        default: return -1
        }
        guard target >= 0 else { return -1 }
        reader.position = target
        return off_t(target)
    }
}

import CFFmpeg
import CSampleKernels
import FileAccess
import Foundation
import TourModel

#if canImport(Glibc)
    import Glibc
#endif

/// Decodes what is not MPEG audio with FFmpeg's libraries: WAV (PCM, float, A-law, µ-law), AAC in
/// MP4/M4A or ADTS, Ogg Vorbis, Opus, FLAC, WebM/Matroska and AIFF. The stream's first audio track is decoded and turned
/// by libswresample into signed 16-bit interleaved PCM at the stream's own rate: mono stays mono,
/// anything with more channels becomes stereo. A level (`applyLevel`) is applied to float samples
/// on the way, so that a stream mastered past full scale, turned down, is not cut at it first.
///
/// A stream that breaks off (a truncated download) plays what it has and reports `damage`; a
/// packet the codec refuses is skipped and counted. Not thread-safe: one decoder, one thread.
public final class FFmpegDecoder: AudioDecoder {
    public let format: PCMFormat
    public let name: String
    public private(set) var framesDecoded = 0
    public private(set) var damage: String?
    /// What the sniffer said the bytes are, for messages.
    public let kind: MediaKind

    private let source: Source
    private var stream: Stream
    /// A WAV or Ogg file shorter than it says (`ContainerEnd`), reported when the stream ends.
    private let containerDamage: String?
    /// Frames still to drop after a seek (the target is inside a decoded frame).
    private var skip = 0
    /// The level the PCM is handed out at (`applyLevel`).
    private var level: Float = 1
    /// Float samples handed out (`handOutFloat`).
    private var floatOutput = false
    private var bytesPerFrame: Int { floatOutput ? format.channels * 4 : format.bytesPerFrame }

    enum Source {
        case file(String)
        case data(Data)
    }

    /// Opens the file at `url` (a regular file only), whose bytes look like `kind`.
    public convenience init(contentsOf url: URL, kind: MediaKind) throws(PlaybackError) {
        // Only a regular file is handed to FFmpeg: a FIFO would block, a device need not end.
        do { close(try InputFile.open(url.path)) } catch { throw PlaybackError(input: error) }
        try self.init(source: .file(url.path), name: url.path, kind: kind)
    }

    /// Opens a file held in memory; `name` is used in messages.
    public convenience init(data: Data, name: String = "<memory>", kind: MediaKind) throws(PlaybackError) {
        try self.init(source: .data(data), name: name, kind: kind)
    }

    private init(source: Source, name: String, kind: MediaKind) throws(PlaybackError) {
        guard FFmpegLibraries.available else {
            throw PlaybackError.unsupported(path: name, kind: kind, detail: FFmpegLibraries.missing)
        }
        FFmpegLibraries.quiet()
        self.source = source
        self.name = name
        self.kind = kind
        stream = try Stream(source: source, name: name, kind: kind)
        format = stream.format
        switch source {
        case .file(let path): containerDamage = ContainerEnd.truncation(of: kind, path: path)
        case .data(let data): containerDamage = ContainerEnd.truncation(of: kind, data: data)
        }
    }

    public func nextChunk() throws(PlaybackError) -> UnsafeMutableRawBufferPointer? {
        while true {
            guard var chunk = try stream.next() else {
                // A container cut short says so before a packet it left half-written.
                if damage == nil { damage = stream.seriousDamage ?? containerDamage ?? stream.refusedDamage }
                return nil
            }
            if skip > 0 {
                let frames = chunk.count / bytesPerFrame
                let dropped = min(frames, skip)
                skip -= dropped
                framesDecoded += dropped
                if dropped == frames { continue }
                chunk = UnsafeMutableRawBufferPointer(rebasing: chunk[(dropped * bytesPerFrame)...])
            }
            framesDecoded += chunk.count / bytesPerFrame
            return chunk
        }
    }

    /// Decodes a second copy of the stream to the end and counts: containers' declared durations
    /// are estimates (and a truncated file's are wrong), and the preview needs the exact length.
    public func exactFrameCount() throws(PlaybackError) -> Int {
        let counter = try Stream(source: source, name: name, kind: kind)
        var frames = 0
        while let chunk = try counter.next() { frames += chunk.count / format.bytesPerFrame }
        return frames
    }

    /// Starts again and drops decoded frames up to `frame`: exact whatever the container's index.
    public func seek(toFrame frame: Int) throws(PlaybackError) {
        stream = try Stream(source: source, name: name, kind: kind)
        // The new pass hands out what the old one did.
        if level != 1 { _ = stream.setLevel(level) }
        if floatOutput { _ = stream.setFloat() }
        framesDecoded = 0
        damage = nil
        skip = max(0, frame)
    }

    /// The codecs decode to float or to more than 16 bits, which a file mastered past full scale
    /// (a float WAV, an AAC or Opus stream whose peaks the codec carries past it) holds whole: the
    /// level is applied there, before the 16-bit PCM, so what is turned down plays unclipped.
    public func applyLevel(_ factor: Float) -> Bool {
        guard framesDecoded == 0, skip == 0, !floatOutput, factor.isFinite, factor > 0, stream.setLevel(factor) else {
            return false
        }
        level = factor
        return true
    }

    /// The float samples libswresample makes, as they are: a stream mastered past full scale is
    /// measured whole in one reading (the loudness meter read it twice, the second 12 dB down).
    public func handOutFloat() -> Bool {
        guard framesDecoded == 0, skip == 0, level == 1, stream.setFloat() else { return false }
        floatOutput = true
        return true
    }
}

/// Versions of FFmpeg's libraries, read at run time, for `doctor` and `--version`.
public enum FFmpegLibraries {
    /// True when the libraries load (they are opened at first use, not linked).
    public static var available: Bool { ws_ff_available() != 0 }
    static let missing = "needs FFmpeg's libraries (libavformat, libavcodec, libswresample), which are not installed"
    /// True when libswresample loads, without libavcodec and libavformat: a sample conversion
    /// (a narration at another rate) loaded all of them, 25 MiB and 20 ms of dynamic linking.
    static var resamplerAvailable: Bool { ws_swr_available() != 0 }
    static let resamplerMissing = "needs FFmpeg's libswresample, which is not installed"

    public static var avformatVersion: String { ws_avformat_version().map { version($0()) } ?? "not installed" }
    public static var avcodecVersion: String { ws_avcodec_version().map { version($0()) } ?? "not installed" }
    public static var swresampleVersion: String {
        ws_swresample_version().map { version($0()) } ?? "not installed"
    }

    private static func version(_ packed: UInt32) -> String {
        "\(packed >> 16).\((packed >> 8) & 0xFF).\(packed & 0xFF)"
    }

    private static let silenced: Void = { ws_av_quiet() }()
    static func quiet() { _ = silenced }

    static func text(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        return String(cString: ws_av_error_text(code, &buffer, buffer.count))
    }
}

/// One pass over a stream: the demuxer, the codec and the converter, freed together.
private final class Stream {
    private(set) var format = PCMFormat(sampleRate: 44100, channels: 2)
    /// What cost the narration something: the file ends early; decoding could not go on; a
    /// stretch could not be decoded.
    var seriousDamage: String? {
        if let ended { return ended }
        if let stopped { return stopped }
        guard lost >= MP3Decoder.skippedWorthSaying else { return nil }
        return "damaged stretch skipped: " + String(format: "%.2f", lost)
            + " s of the narration could not be decoded (from " + String(format: "%.1f", lostFrom ?? 0) + " s on)"
    }
    /// Packets refused, costing less than that.
    var refusedDamage: String? {
        guard refusedPackets > 0 else { return nil }
        return "\(refusedPackets) damaged packet\(refusedPackets == 1 ? "" : "s") skipped"
    }
    private var ended: String?
    private var stopped: String?
    /// Seconds the frames' timestamps skip where the stream shows damage (packets refused by the
    /// codec, or bytes the demuxer skipped), and where the longest such stretch begins (seconds
    /// from the stream's start).
    private var lost = 0.0
    private var lostFrom: Double?
    private var largestGap = 0.0
    /// Seconds per tick of the stream's timestamps (0: none to go by), the first frame's, the
    /// rate they are judged at, and where the last frame ends.
    private var timeBase = 0.0
    private var firstTimestamp: Int64?
    private var stampedRate: Int32 = 0
    private var expectedTimestamp: Int64?
    /// Seconds of frames still judged after damage was seen (a packet refused, bytes skipped
    /// between packets): an Ogg demuxer stamps the page after a lost one as if nothing was lost,
    /// and the page after that shows the skip.
    private var damageWindow = 0.0
    static let damageReach = 3.0
    /// Where the last packets read began (any stream) and their bytes, in containers whose
    /// packets follow one another closely (Ogg pages, Matroska blocks): a demuxer that
    /// resynchronises past damaged bytes leaves a hole.
    private let followsBytes: Bool
    private var runPosition: Int64 = -1
    private var runBytes: Int64 = 0
    static let byteHole: Int64 = 1024
    /// Decoding errors since the last frame: the codec drops the packet and goes on, as ffmpeg
    /// does, unless nothing decodes any more.
    private var errorsInARow = 0
    static let mostErrorsInARow = 1000

    private var formatContext: UnsafeMutablePointer<AVFormatContext>?
    private var codecContext: UnsafeMutablePointer<AVCodecContext>?
    private var resampler: OpaquePointer?
    private let packet: UnsafeMutablePointer<AVPacket>
    private let frame: UnsafeMutablePointer<AVFrame>
    private var streamIndex: Int32 = -1
    private let name: String
    private var released = false
    /// Keeps the reader of an in-memory blob alive while FFmpeg reads from it.
    private var blob: BlobSource?
    private let output = ResampledPCM()
    private var draining = false
    private var finished = false
    private var refusedPackets = 0
    /// The first frame, decoded at opening, not handed out yet.
    private var pending = false
    /// What the converter was set up for: the first frame's rate, channels and sample format.
    private var input = Signature(rate: 0, channels: 0, sampleFormat: -1)
    /// The factor the PCM is multiplied by (`setLevel`): then the converter makes float, scaled
    /// and rounded to 16 bits here, once.
    private var level: Float = 1
    private var levelled = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 16)
    /// Float samples handed out as they are (`setFloat`).
    private var floatOut = false

    struct Signature: Equatable {
        var rate: Int32
        var channels: Int32
        var sampleFormat: Int32

        init(rate: Int32, channels: Int32, sampleFormat: Int32) {
            self.rate = rate
            self.channels = channels
            self.sampleFormat = sampleFormat
        }

        init(_ frame: AVFrame) {
            self.init(rate: frame.sample_rate, channels: frame.ch_layout.nb_channels, sampleFormat: frame.format)
        }
    }

    init(source: FFmpegDecoder.Source, name: String, kind: MediaKind) throws(PlaybackError) {
        self.name = name
        followsBytes = kind == .ogg || kind == .matroska
        guard let packet = ws_av_packet_alloc()!(), let frame = ws_av_frame_alloc()!() else {
            throw PlaybackError.decodeFailed(path: name, reason: "out of memory")
        }
        self.packet = packet
        self.frame = frame
        var context: UnsafeMutablePointer<AVFormatContext>?
        var result: Int32
        switch source {
        case .file(let path):
            result = ws_avformat_open_input()!(&context, path, nil, nil)
        case .data(let data):
            let blob = BlobSource(data)
            self.blob = blob
            context = ws_avformat_alloc_context()!()
            context?.pointee.pb = blob.ioContext
            result = context == nil ? -ENOMEM : ws_avformat_open_input()!(&context, nil, nil, nil)
        }
        formatContext = context
        do throws(PlaybackError) {
            guard result >= 0, let context else { throw Self.refused(name, kind, result) }
            result = ws_avformat_find_stream_info()!(context, nil)
            guard result >= 0 else { throw Self.refused(name, kind, result) }
            var codec: UnsafePointer<AVCodec>?
            streamIndex = ws_av_find_best_stream()!(context, AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0)
            guard streamIndex >= 0, let codec,
                let parameters = context.pointee.streams[Int(streamIndex)]?.pointee.codecpar
            else {
                throw PlaybackError.unsupported(
                    path: name, kind: kind, detail: "holds no audio stream walkscape can decode")
            }
            guard let codecContext = ws_avcodec_alloc_context3()!(codec) else {
                throw PlaybackError.decodeFailed(path: name, reason: "out of memory")
            }
            self.codecContext = codecContext
            if let base = context.pointee.streams[Int(streamIndex)]?.pointee.time_base, base.num > 0, base.den > 0 {
                timeBase = Double(base.num) / Double(base.den)
            }
            result = ws_avcodec_parameters_to_context()!(codecContext, parameters)
            guard result >= 0 else { throw Self.refused(name, kind, result) }
            result = ws_avcodec_open2()!(codecContext, codec, nil)
            guard result >= 0 else { throw Self.refused(name, kind, result) }
            // The first decoded frame, not the header, says what the stream is: a header may
            // differ from what its frames decode to (ADTS, for one).
            guard try receiveFrame() else {
                throw PlaybackError.unsupported(path: name, kind: kind, detail: "holds no audio it can decode")
            }
            pending = true
            let rate = Int(frame.pointee.sample_rate)
            let inChannels = Int(frame.pointee.ch_layout.nb_channels)
            guard rate > 0, inChannels > 0 else {
                throw PlaybackError.decodeFailed(path: name, reason: "the stream declares no sample rate or channels")
            }
            // A header can claim anything; past 768 kHz (four times the fastest studio rate) no
            // narration is meant, and the rate would reach the device and every duration.
            guard rate <= Self.maxSampleRate else {
                throw PlaybackError.unsupported(
                    path: name, kind: kind, detail: "declares an impossible sample rate (\(rate) Hz)")
            }
            format = PCMFormat(sampleRate: rate, channels: min(inChannels, 2))
            guard makeResampler() else {
                throw PlaybackError.decodeFailed(path: name, reason: "cannot convert its samples")
            }
        } catch {
            release()
            throw error
        }
    }

    /// Hands out the PCM multiplied by `factor`, before the first chunk is taken (the first frame,
    /// decoded at opening, still waits in `frame`). False when it is too late.
    func setLevel(_ factor: Float) -> Bool { !floatOut && setOutput(level: factor, float: false) }

    /// Hands out float samples, unscaled, before the first chunk is taken. False when too late.
    func setFloat() -> Bool { level == 1 && setOutput(level: 1, float: true) }

    /// A converter for the first frame making what `level` and `float` ask, in place of the one
    /// made at opening; as it was when it cannot be made.
    private func setOutput(level: Float, float: Bool) -> Bool {
        guard pending, !finished else { return false }
        let before = (self.level, floatOut)
        (self.level, floatOut) = (level, float)
        guard makeResampler() else {
            (self.level, floatOut) = before
            return false
        }
        return true
    }

    /// A converter from what `frame` holds to `format`, in place of the one before: the stream's
    /// first frame sets the format; a part-way change of rate or channels (a chained Ogg, ADTS
    /// files concatenated) is converted to it. False when the frame's layout cannot be converted.
    private func makeResampler() -> Bool {
        let inChannels = frame.pointee.ch_layout.nb_channels
        guard frame.pointee.sample_rate > 0, frame.pointee.sample_rate <= Int32(Self.maxSampleRate), inChannels > 0
        else { return false }
        var outLayout = AVChannelLayout()
        ws_av_channel_layout_default()!(&outLayout, Int32(format.channels))
        var inLayout = AVChannelLayout()
        if frame.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC {
            ws_av_channel_layout_default()!(&inLayout, inChannels)
        } else {
            ws_av_channel_layout_copy()!(&inLayout, &frame.pointee.ch_layout)
        }
        defer { ws_av_channel_layout_uninit()!(&inLayout) }
        var swr: OpaquePointer?
        let result = ws_swr_alloc_set_opts2()!(
            &swr, &outLayout, level == 1 && !floatOut ? AV_SAMPLE_FMT_S16 : AV_SAMPLE_FMT_FLT,
            Int32(format.sampleRate), &inLayout,
            AVSampleFormat(frame.pointee.format), frame.pointee.sample_rate, 0, nil)
        // A part spliced in with more channels than a mono stream keeps its loudness (as
        // `SampleConverter`'s `keepingLoudness`); the first frame's own downmix (5.1 to stereo) is
        // libswresample's.
        let splicedDownmix = resampler != nil && format.channels == 1 && inChannels == 2
        // A downmix is scaled so that it cannot pass full scale when the output is 16 bits, not
        // when it is float: the same scaling both ways (5.1 speech levelled in float played 7 dB
        // over the target, clipped in 48,000 places).
        guard result >= 0, let swr, !splicedDownmix || SampleConverter.sumToMono(swr),
            ws_av_opt_set_double()!(UnsafeMutableRawPointer(swr), "rematrix_maxval", 1, 0) >= 0,
            ws_swr_init()!(swr) >= 0
        else {
            if swr != nil { ws_swr_free()!(&swr) }
            return false
        }
        if resampler != nil { ws_swr_free()!(&resampler) }
        resampler = swr
        input = Signature(frame.pointee)
        return true
    }

    deinit { release() }

    private func release() {
        guard !released else { return }
        released = true
        if resampler != nil { ws_swr_free()!(&resampler) }
        if codecContext != nil { ws_avcodec_free_context()!(&codecContext) }
        if formatContext != nil { ws_avformat_close_input()!(&formatContext) }
        var packet: UnsafeMutablePointer<AVPacket>? = self.packet
        ws_av_packet_free()!(&packet)
        var frame: UnsafeMutablePointer<AVFrame>? = self.frame
        ws_av_frame_free()!(&frame)
        blob = nil
        levelled.deallocate()
    }

    static let maxSampleRate = 768_000

    private static func refused(_ name: String, _ kind: MediaKind, _ code: Int32) -> PlaybackError {
        if code == -EACCES || code == -EIO { return .unreadable(path: name, reason: FFmpegLibraries.text(code)) }
        return .unsupported(path: name, kind: kind, detail: "cannot be decoded (\(FFmpegLibraries.text(code)))")
    }

    /// The next converted PCM, or nil at the end of the stream.
    func next() throws(PlaybackError) -> UnsafeMutableRawBufferPointer? {
        while !finished {
            if pending {
                pending = false
            } else if try !receiveFrame() {
                finished = true
                // What the converter still holds (none at one rate, but flush all the same).
                return try convert(input: nil, frames: 0)
            }
            defer { ws_av_frame_unref()!(frame) }
            if Signature(frame.pointee) != input {
                // Another rate, channel count or sample format part-way (a chained Ogg, ADTS files
                // concatenated): converted to the stream's first format from here on. What the old
                // converter still held (a resampler's last few samples) is let go.
                let changed = Signature(frame.pointee)
                guard makeResampler() else {
                    // Decoding on would feed the converter a layout it was not set up for.
                    finished = true
                    stopped =
                        stopped
                        ?? "the stream changes to \(changed.rate) Hz, \(changed.channels) channel(s) part-way and cannot be converted; stopped there"
                    return nil
                }
            }
            let chunk = try convert(
                input: UnsafeMutablePointer<UnsafePointer<UInt8>?>(OpaquePointer(frame.pointee.extended_data)),
                frames: frame.pointee.nb_samples)
            if let chunk { return chunk }
        }
        return nil
    }

    /// Decodes into `frame`; false at the end of the stream (or where decoding gave up, with
    /// `damage` saying why).
    private func receiveFrame() throws(PlaybackError) -> Bool {
        guard let codecContext, let formatContext else { return false }
        while true {
            let received = ws_avcodec_receive_frame()!(codecContext, frame)
            if received == 0 {
                errorsInARow = 0
                noteTimestamp()
                return true
            }
            if received == ws_averror_eof() { return false }
            if received != ws_averror_eagain() {
                // A damaged packet (FLAC, ADPCM): dropped, and decoding goes on with the next, as
                // ffmpeg does; the timestamps tell what it cost. It stopped the narration there.
                errorsInARow += 1
                refusedPackets += 1
                damageWindow = Self.damageReach
                guard errorsInARow < Self.mostErrorsInARow else {
                    stopped = stopped ?? "decoding stopped early (\(FFmpegLibraries.text(received)))"
                    return false
                }
                continue
            }
            if draining { return false }
            let read = ws_av_read_frame()!(formatContext, packet)
            if read < 0 {
                if read != ws_averror_eof() {
                    ended = "the file ends early (\(FFmpegLibraries.text(read))); played what it holds"
                }
                draining = true
                ws_avcodec_send_packet()!(codecContext, nil)
                continue
            }
            defer { ws_av_packet_unref()!(packet) }
            notePosition()
            guard packet.pointee.stream_index == streamIndex else { continue }
            if ws_avcodec_send_packet()!(codecContext, packet) < 0 {
                refusedPackets += 1
                damageWindow = Self.damageReach
            }
        }
    }

    /// Notes a hole between the packet just read and those before (Ogg and Matroska only: in MP4
    /// other boxes may lie between them). Packets share a position where they share an Ogg page:
    /// the next position should come after their bytes and a few page headers.
    private func notePosition() {
        guard followsBytes else { return }
        let position = packet.pointee.pos
        let size = Int64(packet.pointee.size)
        guard position >= 0, position != runPosition else {
            runBytes += size
            return
        }
        if runPosition >= 0, position > runPosition + runBytes + Self.byteHole { damageWindow = Self.damageReach }
        runPosition = position
        runBytes = size
    }

    /// Counts what the decoded frame's timestamp skips past where the last frame ended, when the
    /// stream showed damage within the last 3 s (a packet refused, bytes the demuxer skipped): a
    /// stretch lost to it. A skip without damage is the timestamps' own (a capture clock's jump or drift,
    /// Vorbis's block overlaps, Opus's pre-skip): nothing is missing from the file, and ffmpeg
    /// plays it as it is; counted, a recording 0.4 % slow was 0.2 s damaged and one with a 2 s
    /// jump in its stamps 2 s. A timestamp before the last frame's end (a chained Ogg's next part)
    /// starts again from it; a frame without one follows the last.
    private func noteTimestamp() {
        let rate = frame.pointee.sample_rate
        guard timeBase > 0, rate > 0 else { return }
        // After a change of rate part-way (ADTS files concatenated, a chained Ogg) the demuxers
        // stamp frames at the first part's rate or in the stream's first time base: what follows
        // is not judged by them.
        if stampedRate == 0 { stampedRate = rate }
        guard rate == stampedRate else {
            timeBase = 0
            return
        }
        let seconds = Double(frame.pointee.nb_samples) / Double(rate)
        let ticks = Int64((seconds / timeBase).rounded())
        let stamp = frame.pointee.best_effort_timestamp
        guard stamp != Int64.min else {
            expectedTimestamp = expectedTimestamp.map { $0 + ticks }
            return
        }
        let streamStart = firstTimestamp ?? stamp
        firstTimestamp = streamStart
        if let expected = expectedTimestamp, damageWindow > 0 {
            let gap = Double(stamp - expected) * timeBase
            if gap >= Self.gapWorthCounting {
                lost += gap
                if gap > largestGap {
                    largestGap = gap
                    lostFrom = Double(expected - streamStart) * timeBase
                }
            }
        }
        damageWindow = max(0, damageWindow - seconds)
        expectedTimestamp = stamp + ticks
    }

    /// Shorter skips are the timestamps' rounding (Matroska's are milliseconds).
    static let gapWorthCounting = 0.02

    /// Converts `frames` input frames (nil: flush); nil when nothing came out.
    private func convert(input: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, frames: Int32)
        throws(PlaybackError) -> UnsafeMutableRawBufferPointer?
    {
        guard let resampler else { return nil }
        let chunk = try output.convert(
            resampler, input: input, frames: frames, to: format, float: level != 1 || floatOut, name: name)
        if chunk.isEmpty { return nil }
        return level == 1 ? chunk : scaled(chunk.bindMemory(to: Float.self))
    }

    /// Float PCM times `level`, rounded to 16 bits and saturating (as libswresample's own float to
    /// s16: full scale is 32768, to nearest).
    private func scaled(_ samples: UnsafeMutableBufferPointer<Float>) -> UnsafeMutableRawBufferPointer {
        if levelled.count < samples.count * 2 {
            levelled.deallocate()
            levelled = .allocate(byteCount: samples.count * 2, alignment: 16)
        }
        let out = levelled.bindMemory(to: Int16.self)
        let factor = level * 32768
        // Clamped, then rounded to nearest even, in a form the compiler vectorises.
        for i in 0..<samples.count {
            let value = max(-32768, min(32767, samples[i] * factor)).rounded(.toNearestOrEven)
            out[i] = Int16(truncatingIfNeeded: Int32(value))
        }
        return UnsafeMutableRawBufferPointer(rebasing: levelled[0..<(samples.count * 2)])
    }
}

/// A blob in memory, read by libavformat through a custom I/O context.
private final class BlobSource {
    let data: Data
    var position = 0
    private(set) var ioContext: UnsafeMutablePointer<AVIOContext>?

    init(_ data: Data) {
        self.data = data
        let size: Int32 = 64 * 1024
        guard let buffer = ws_av_malloc()!(Int(size)) else { return }
        ioContext = ws_avio_alloc_context()!(
            buffer.assumingMemoryBound(to: UInt8.self), size, 0, Unmanaged.passUnretained(self).toOpaque(),
            Self.read, nil, Self.seek)
    }

    deinit {
        if let ioContext {
            ws_av_freep()!(&ioContext.pointee.buffer)
        }
        ws_avio_context_free()!(&ioContext)
    }

    static let read: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = {
        opaque, buffer, size in
        guard let opaque, let buffer else { return ws_averror_eof() }
        let blob = Unmanaged<BlobSource>.fromOpaque(opaque).takeUnretainedValue()
        let count = min(Int(size), blob.data.count - blob.position)
        guard count > 0 else { return ws_averror_eof() }
        blob.data.withUnsafeBytes { bytes in
            UnsafeMutableRawPointer(buffer).copyMemory(
                from: bytes.baseAddress!.advanced(by: blob.position), byteCount: count)
        }
        blob.position += count
        return Int32(count)
    }

    static let seek: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = { opaque, offset, whence in
        guard let opaque else { return -1 }
        let blob = Unmanaged<BlobSource>.fromOpaque(opaque).takeUnretainedValue()
        if whence & ws_avseek_size() != 0 { return Int64(blob.data.count) }
        let target: Int64
        switch whence & ~Int32(AVSEEK_FORCE) {
        case SEEK_SET: target = offset
        case SEEK_CUR: target = Int64(blob.position) + offset
        case SEEK_END: target = Int64(blob.data.count) + offset
        default: return -1
        }
        guard target >= 0, target <= Int64(blob.data.count) else { return -1 }
        blob.position = Int(target)
        return target
    }
}

/// Converts s16 interleaved PCM from one rate and channel count to another with libswresample:
/// the one conversion path, for a narration whose format differs from the one the output was
/// opened with (a 48 kHz point after a 44.1 kHz one plays on without reopening the device).
final class SampleConverter {
    let from: PCMFormat
    let to: PCMFormat
    private var context: OpaquePointer?
    private let output = ResampledPCM()
    private var flushed = false

    /// Mono to stereo at the same rate: done here (each sample 3 dB down on both channels, as
    /// libswresample's upmix), without loading FFmpeg's libraries for it. A mono MP3 at 44.1 kHz
    /// cost 1.54x mpg123's CPU and 21 MiB more memory through libswresample, 1.13x before.
    /// Whether this converter only upmixes (mono to stereo at the same rate), which can take a
    /// gain in the same pass (`upmix(_:gain:)`).
    let upmixOnly: Bool
    /// A mono narration at another rate is resampled in mono, then upmixed here: resampling costs
    /// per channel (a 22.05 kHz mono MP3 took 38 % of a play's CPU in libswresample, in stereo).
    private let upmixAfter: Bool
    /// What libswresample makes: `to`, or `to`'s rate in mono when `upmixAfter`.
    private let resampled: PCMFormat
    private var upmixed = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    /// - Parameter keepingLoudness: a downmix (stereo to mono) sums the channels 3 dB down each
    ///   instead of halving them, so that what it makes, played on both channels 3 dB down, is as
    ///   loud as the stereo was (a stereo part spliced after a mono one played 3 dB under it);
    ///   what would pass full scale saturates.
    init(from: PCMFormat, to: PCMFormat, keepingLoudness: Bool = false) throws(PlaybackError) {
        self.from = from
        self.to = to
        upmixAfter = from.channels == 1 && to.channels == 2
        upmixOnly = upmixAfter && from.sampleRate == to.sampleRate
        resampled = upmixAfter ? PCMFormat(sampleRate: to.sampleRate, channels: 1) : to
        if upmixOnly { return }
        guard FFmpegLibraries.resamplerAvailable else {
            throw PlaybackError.decodeFailed(path: "\(from) to \(to)", reason: FFmpegLibraries.resamplerMissing)
        }
        FFmpegLibraries.quiet()
        var outLayout = AVChannelLayout()
        var inLayout = AVChannelLayout()
        ws_av_channel_layout_default()!(&outLayout, Int32(resampled.channels))
        ws_av_channel_layout_default()!(&inLayout, Int32(from.channels))
        guard
            ws_swr_alloc_set_opts2()!(
                &context, &outLayout, AV_SAMPLE_FMT_S16, Int32(resampled.sampleRate), &inLayout, AV_SAMPLE_FMT_S16,
                Int32(from.sampleRate), 0, nil) >= 0, let context,
            !keepingLoudness || !(from.channels == 2 && to.channels == 1) || Self.sumToMono(context),
            ws_swr_init()!(context) >= 0
        else {
            throw PlaybackError.decodeFailed(path: "\(from) to \(to)", reason: "cannot convert the samples")
        }
    }

    deinit {
        if context != nil { ws_swr_free()!(&context) }
        upmixed.deallocate()
    }

    /// Sets a stereo-to-mono context (not yet initialised) to sum both channels 3 dB down, where
    /// libswresample halves them: played back on both channels 3 dB down, the mono is as loud as
    /// the stereo was.
    static func sumToMono(_ context: OpaquePointer) -> Bool {
        var matrix = [Double(0.5).squareRoot(), Double(0.5).squareRoot()]
        return ws_swr_set_matrix()!(context, &matrix, 2) >= 0
    }

    /// `pcm` (mono) on both channels, 3 dB down, times `gain` (at most 32, as `PlaybackEngine.scale`),
    /// rounded to nearest and saturating: the queue's steady level in the same pass, so a levelled
    /// mono narration is not gone over twice (the scaling was 8 % of a play's CPU). The buffer is
    /// valid until the next call.
    func upmix(_ pcm: UnsafeMutableRawBufferPointer, gain: Float = 1) -> UnsafeMutableRawBufferPointer {
        let samples = pcm.bindMemory(to: Int16.self)
        if upmixed.count < samples.count * 4 {
            upmixed.deallocate()
            upmixed = .allocate(byteCount: samples.count * 4, alignment: 16)
        }
        let out = upmixed.bindMemory(to: Int16.self)
        guard let input = samples.baseAddress, let output = out.baseAddress else {
            return UnsafeMutableRawBufferPointer(rebasing: upmixed[0..<0])
        }
        // In C with SSE2 (`CSampleKernels`): these loops in Swift stayed scalar (the comment said
        // the compiler vectorised them; it did not), a tenth of a mono MP3's play.
        if gain == 1 {
            // 1/√2 in Q15 (23170), rounded to nearest.
            ws_upmix_unity(input, output, samples.count)
        } else {
            // Q16 (Q10, as the queue scales, is 6 steps off at full scale): half away from zero,
            // then saturated.
            ws_upmix_q16(input, output, samples.count, Self.q16(gain: gain))
        }
        return UnsafeMutableRawBufferPointer(rebasing: upmixed[0..<(samples.count * 4)])
    }

    /// The upmix's factor for `gain` (0 to 32), 3 dB down included, in Q16.
    static func q16(gain: Float) -> UInt32 {
        UInt32((Double(min(32, max(0, gain))) * 0.5.squareRoot() * 65536).rounded())
    }

    /// A whole item's PCM converted at once, as the queue converts it piece by piece.
    static func convertAll(_ pcm: Data, from: PCMFormat, to: PCMFormat) throws(PlaybackError) -> Data {
        let converter = try SampleConverter(from: from, to: to)
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: pcm.count, alignment: 16)
        defer { input.deallocate() }
        input.copyBytes(from: pcm)
        var out = Data()
        if !pcm.isEmpty, let chunk = try converter.convert(input) {
            out.append(contentsOf: UnsafeRawBufferPointer(chunk))
        }
        while let tail = try converter.convert(nil) { out.append(contentsOf: UnsafeRawBufferPointer(tail)) }
        return out
    }

    /// `pcm` in the output format (nil input: what the converter still holds, once, at the end).
    /// The buffer belongs to the converter and is valid until the next call.
    func convert(_ pcm: UnsafeMutableRawBufferPointer?) throws(PlaybackError) -> UnsafeMutableRawBufferPointer? {
        if upmixOnly { return pcm.map { upmix($0) } }
        guard let context else { return nil }
        if pcm == nil {
            if flushed { return nil }
            flushed = true
        }
        let inFrames = Int32((pcm?.count ?? 0) / from.bytesPerFrame)
        var planes: [UnsafePointer<UInt8>?] = [
            pcm.map { UnsafePointer($0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
        ]
        let chunk = try planes.withUnsafeMutableBufferPointer { input throws(PlaybackError) in
            try output.convert(
                context, input: pcm == nil ? nil : input.baseAddress, frames: inFrames, to: resampled,
                name: "\(from) to \(to)")
        }
        // At the end, nothing more to come is the end; mid-item, an empty piece is skipped.
        if pcm == nil && chunk.isEmpty { return nil }
        return upmixAfter && !chunk.isEmpty ? upmix(chunk) : chunk
    }
}

/// The output side of a libswresample context: s16 interleaved PCM in a buffer that grows as
/// needed. The one conversion step of the decoder and the converter alike.
final class ResampledPCM {
    private var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 16)

    deinit { buffer.deallocate() }

    /// Converts `frames` input frames (nil input: what the context still holds) to `format`
    /// (`float`: interleaved float samples at its rate and channels, which the context was set up
    /// to make); the PCM, possibly empty, is valid until the next call.
    func convert(
        _ context: OpaquePointer, input: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, frames: Int32,
        to format: PCMFormat, float: Bool = false, name: String
    ) throws(PlaybackError) -> UnsafeMutableRawBufferPointer {
        let capacity = Int(ws_swr_get_out_samples()!(context, frames))
        let bytesPerFrame = float ? format.channels * 4 : format.bytesPerFrame
        guard capacity > 0 else { return UnsafeMutableRawBufferPointer(rebasing: buffer[0..<0]) }
        if buffer.count < capacity * bytesPerFrame {
            buffer.deallocate()
            buffer = .allocate(byteCount: capacity * bytesPerFrame, alignment: 16)
        }
        var planes: [UnsafeMutablePointer<UInt8>?] = [buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)]
        let converted = planes.withUnsafeMutableBufferPointer { out in
            ws_swr_convert()!(context, out.baseAddress, Int32(capacity), input, frames)
        }
        guard converted >= 0 else {
            throw PlaybackError.decodeFailed(path: name, reason: FFmpegLibraries.text(converted))
        }
        return UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(Int(converted) * bytesPerFrame)])
    }
}

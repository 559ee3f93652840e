import FileAccess
import Foundation

/// Writes PCM as a canonical 44-byte-header WAV (`walkscape play --output out.wav`, `walk
/// --output`), through an `OutputFile`: a regular file is replaced atomically when the sink
/// closes, a FIFO, terminal or device (or `-`, standard output) is written through.
///
/// A WAV holds one format, the first `configure`'s; another is refused (the audio queue converts
/// later items in another format before they reach a sink).
///
/// Nothing is created or changed until the first PCM arrives: a narration that cannot be decoded
/// leaves an existing file as it was. The header goes out first with the streaming convention for
/// "length unknown", 0xFFFFFFFF in both sizes, which players read as "to the end of the data".
/// When the output is our own temporary file the real sizes are written over it on `close()`; a
/// stream (a FIFO, standard output) cannot be rewound, so it keeps the streaming header. So does a
/// file past 4 GiB, which the header's 32-bit sizes cannot describe.
///
/// If a write fails (a full disk), nothing more is written, the output is dropped (a replaced file
/// stays as it was) and every later call, `close()` included, reports that failure.
public final class WAVFileSink: PCMSink, @unchecked Sendable {
    public let output: OutputFile
    /// The file's format, fixed by the first `configure`.
    public private(set) var fileFormat: PCMFormat?
    private var dataBytes = 0
    private var framesSinceConfigure = 0
    private var closed = false
    private var failure: PlaybackError?

    public init(output: OutputFile) {
        self.output = output
    }

    /// A sink writing to `url`.
    public convenience init(url: URL) {
        self.init(output: OutputFile(url.path))
    }

    deinit { try? close() }

    public func configure(_ format: PCMFormat) throws(PlaybackError) {
        if let failure { throw failure }
        if let fileFormat, fileFormat != format {
            // One conversion path: the audio queue converts later items (libswresample), not the sink.
            throw PlaybackError.outputFailed(
                path: output.name, reason: "the file is \(fileFormat) and cannot take \(format) as well")
        }
        fileFormat = format
        framesSinceConfigure = 0
    }

    public func write(_ pcm: UnsafeRawBufferPointer) throws(PlaybackError) {
        if let failure { throw failure }
        guard let fileFormat else {
            throw PlaybackError.outputFailed(path: output.name, reason: "written before it was configured")
        }
        framesSinceConfigure += pcm.count / fileFormat.bytesPerFrame
        do throws(FileAccessError) {
            if !output.isOpen {
                try output.open()
                try output.write(Self.header(fileFormat, dataBytes: nil))
            }
            try output.write(pcm)
            dataBytes += pcm.count
        } catch {
            throw fail(error)
        }
    }

    public func drain() throws(PlaybackError) {
        if let failure { throw failure }
    }

    public var playedFrames: Int { framesSinceConfigure }
    public var keepsTime: Bool { false }

    /// Finishes the file: real sizes into the header where it can be rewritten, then the output
    /// made final. A second call reports how the first went.
    public func close() throws(PlaybackError) {
        if let failure { throw failure }
        guard !closed else { return }
        closed = true
        do throws(FileAccessError) {
            if output.isSeekable, let fileFormat, dataBytes <= Self.maxDataBytes {
                try output.rewrite(Self.header(fileFormat, dataBytes: dataBytes), at: 0)
            }
            try output.commit()
        } catch {
            throw fail(error)
        }
    }

    private func fail(_ error: FileAccessError) -> PlaybackError {
        output.discard()
        let failure = PlaybackError(output: error)
        self.failure = failure
        return failure
    }

    /// The most data the RIFF size field can count (it holds the data's size plus 36).
    static let maxDataBytes = Int(UInt32.max) - 36

    /// The 44-byte RIFF/WAVE header for 16-bit PCM; `dataBytes == nil` while the length is unknown.
    static func header(_ format: PCMFormat, dataBytes: Int?) -> Data {
        var data = Data()
        func u32(_ value: Int) {
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { data.append(contentsOf: $0) }
        }
        func u16(_ value: Int) {
            withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian) { data.append(contentsOf: $0) }
        }
        data.append(contentsOf: Array("RIFF".utf8))
        u32(dataBytes.map { 36 + $0 } ?? 0xFFFF_FFFF)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16)
        u16(1)  // PCM
        u16(format.channels)
        u32(format.sampleRate)
        u32(format.sampleRate * format.bytesPerFrame)
        u16(format.bytesPerFrame)
        u16(16)
        data.append(contentsOf: Array("data".utf8))
        u32(dataBytes ?? 0xFFFF_FFFF)
        return data
    }
}

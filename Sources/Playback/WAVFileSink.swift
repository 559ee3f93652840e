import Foundation

/// Writes PCM to a canonical 44-byte-header WAV file (`walkscape play --output out.wav`).
///
/// A WAV holds one format, so the first item's format is the file's; later items in another format
/// are converted to it (channels mixed or duplicated, rate converted linearly), the way ALSA's plug
/// layer would for a sound card. The header's sizes are patched on `close()`; until then the file
/// says "length unknown" (0xFFFFFFFF), which players treat as "read to the end".
public final class WAVFileSink: PCMSink, @unchecked Sendable {
    public let url: URL
    /// The file's format, fixed by the first `configure`.
    public private(set) var fileFormat: PCMFormat?
    private var inputFormat: PCMFormat?
    private var handle: FileHandle?
    private var dataBytes = 0
    private var framesSinceConfigure = 0
    private var converter: PCMConverter?
    private var closed = false

    public init(url: URL) {
        self.url = url
    }

    deinit { try? close() }

    public func configure(_ format: PCMFormat) throws(PlaybackError) {
        if fileFormat == nil {
            do {
                guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                    throw PlaybackError.outputFailed(path: url.path, reason: "cannot create the file")
                }
                let handle = try FileHandle(forWritingTo: url)
                try handle.write(contentsOf: Self.header(format, dataBytes: nil))
                self.handle = handle
            } catch let error as PlaybackError {
                throw error
            } catch {
                throw PlaybackError.outputFailed(path: url.path, reason: error.localizedDescription)
            }
            fileFormat = format
        }
        inputFormat = format
        converter = format == fileFormat ? nil : PCMConverter(from: format, to: fileFormat!)
        framesSinceConfigure = 0
    }

    public func write(_ pcm: UnsafeRawBufferPointer) throws(PlaybackError) {
        guard let handle, let inputFormat else {
            throw PlaybackError.outputFailed(path: url.path, reason: "written before it was configured")
        }
        framesSinceConfigure += pcm.count / inputFormat.bytesPerFrame
        do {
            if var converter {
                let converted = converter.convert(pcm)
                self.converter = converter
                try handle.write(contentsOf: converted)
                dataBytes += converted.count
            } else {
                try handle.write(contentsOf: Data(pcm))
                dataBytes += pcm.count
            }
        } catch {
            throw PlaybackError.outputFailed(path: url.path, reason: error.localizedDescription)
        }
    }

    public func drain() throws(PlaybackError) {}

    public var playedFrames: Int { framesSinceConfigure }
    public var keepsTime: Bool { false }

    public func close() throws(PlaybackError) {
        guard !closed, let handle, let fileFormat else { return }
        closed = true
        do {
            try handle.seek(toOffset: 0)
            try handle.write(contentsOf: Self.header(fileFormat, dataBytes: dataBytes))
            try handle.close()
        } catch {
            throw PlaybackError.outputFailed(path: url.path, reason: error.localizedDescription)
        }
        self.handle = nil
    }

    /// The 44-byte RIFF/WAVE header for 16-bit PCM; `dataBytes == nil` while the length is unknown.
    static func header(_ format: PCMFormat, dataBytes: Int?) -> Data {
        var data = Data()
        func u32(_ value: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ value: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian) { data.append(contentsOf: $0) } }
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

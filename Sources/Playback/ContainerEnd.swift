import FileAccess
import Foundation
import TourModel

/// Whether a WAV or Ogg file ends short of what it promises. FFmpeg plays such a file to where
/// its bytes stop and says nothing: a WAV's `data` chunk declares more bytes than follow it, an Ogg
/// stream's last page is cut off. (MP3 and FLAC decoders tell a truncated file themselves.)
enum ContainerEnd {
    /// How many chunks of a WAV are walked looking for its `data` chunk.
    static let chunksLookedAt = 64
    /// How much of a file's end is searched for its last Ogg page (a page is at most 65,307 bytes).
    static let tailBytes = 65_536 + 4_096

    /// What is missing, worded as decoders' `damage`; nil when nothing is (or the container does
    /// not say). `read(offset, count)` gives the file's bytes there (fewer at its end).
    static func truncation(of kind: MediaKind, size: Int, read: (Int, Int) -> [UInt8]) -> String? {
        switch kind {
        case .wav: wavTruncation(size: size, read: read)
        case .ogg: oggTruncation(read(max(0, size - tailBytes), min(size, tailBytes)), size: size)
        default: nil
        }
    }

    static func truncation(of kind: MediaKind, path: String) -> String? {
        guard kind == .wav || kind == .ogg, let file = try? InputFile.open(path) else { return nil }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0 else { return nil }
        return truncation(of: kind, size: Int(info.st_size)) { offset, count in
            var bytes = [UInt8](repeating: 0, count: max(0, count))
            let got = bytes.withUnsafeMutableBytes { pread(file, $0.baseAddress, count, off_t(offset)) }
            return got > 0 ? Array(bytes.prefix(got)) : []
        }
    }

    static func truncation(of kind: MediaKind, data: Data) -> String? {
        guard kind == .wav || kind == .ogg else { return nil }
        return truncation(of: kind, size: data.count) { offset, count in
            guard offset < data.count else { return [] }
            let from = data.startIndex + offset
            return Array(data[from..<min(data.endIndex, from + count)])
        }
    }

    private static func le32(_ b: [UInt8], _ at: Int) -> Int {
        Int(b[at]) | Int(b[at + 1]) << 8 | Int(b[at + 2]) << 16 | Int(b[at + 3]) << 24
    }

    /// Walks the chunks' 8-byte headers (each read where it is, not the file's first megabyte).
    private static func wavTruncation(size: Int, read: (Int, Int) -> [UInt8]) -> String? {
        let head = read(0, 12)
        guard head.count == 12, head[0..<4].elementsEqual("RIFF".utf8), head[8..<12].elementsEqual("WAVE".utf8)
        else { return nil }
        var offset = 12
        for _ in 0..<chunksLookedAt {
            let chunk = read(offset, 8)
            guard chunk.count == 8 else { return nil }
            let declared = le32(chunk, 4)
            if chunk[0..<4].elementsEqual("data".utf8) {
                // What recorders writing to a pipe put there (0, 0xFFFFFFFF, SoX's 0x7FFFF000,
                // arecord's 0x7FFFFFFF): no length said.
                guard declared > 0, declared < 0x7FFF_F000 else { return nil }
                let available = size - (offset + 8)
                guard available < declared else { return nil }
                return
                    "the file ends early (\(declared - available) of its \(declared) bytes of audio missing); played what it holds"
            }
            offset += 8 + declared + (declared & 1)
        }
        return nil
    }

    private static func oggTruncation(_ tail: [UInt8], size: Int) -> String? {
        // The last page: the last "OggS" capture pattern with stream structure version 0.
        guard tail.count >= 27 else { return nil }
        var start: Int?
        var i = tail.count - 27
        while i >= 0 {
            if tail[i] == 0x4F, tail[i + 1] == 0x67, tail[i + 2] == 0x67, tail[i + 3] == 0x53, tail[i + 4] == 0 {
                start = i
                break
            }
            i -= 1
        }
        guard let start else { return nil }
        let segments = Int(tail[start + 26])
        guard start + 27 + segments <= tail.count else {
            return "the file ends early (its last Ogg page is cut off); played what it holds"
        }
        let body = tail[(start + 27)..<(start + 27 + segments)].reduce(0) { $0 + Int($1) }
        if start + 27 + segments + body > tail.count {
            return "the file ends early (its last Ogg page is cut off); played what it holds"
        }
        // A last page without the end-of-stream flag is not taken as a cut: a live stream's
        // capture ends that way whole.
        return nil
    }
}

import FileAccess
import Foundation
import TourModel

/// Whether a WAV or Ogg file ends short of what it promises. FFmpeg plays such a file to where
/// its bytes stop and says nothing: a WAV's `data` chunk declares more bytes than follow it, an Ogg
/// stream's last page is cut off. (MP3 and FLAC decoders tell a truncated file themselves.)
enum ContainerEnd {
    /// How far into a file its `data` chunk is looked for.
    static let headerBytes = 1 << 20
    /// How much of a file's end is searched for its last Ogg page (a page is at most 65,307 bytes).
    static let tailBytes = 65_536 + 4_096

    /// What is missing, worded as decoders' `damage`; nil when nothing is (or the container does not say).
    static func truncation(of kind: MediaKind, head: [UInt8], tail: [UInt8], size: Int) -> String? {
        switch kind {
        case .wav: wavTruncation(head, size: size)
        case .ogg: oggTruncation(tail, size: size)
        default: nil
        }
    }

    static func truncation(of kind: MediaKind, path: String) -> String? {
        guard kind == .wav || kind == .ogg, let file = try? InputFile.open(path) else { return nil }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0 else { return nil }
        let size = Int(info.st_size)
        func read(at offset: Int, count: Int) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: max(0, count))
            let got = bytes.withUnsafeMutableBytes { pread(file, $0.baseAddress, count, off_t(offset)) }
            return got > 0 ? Array(bytes.prefix(got)) : []
        }
        let head = kind == .wav ? read(at: 0, count: min(size, headerBytes)) : []
        let tailStart = max(0, size - tailBytes)
        let tail = kind == .ogg ? read(at: tailStart, count: size - tailStart) : []
        return truncation(of: kind, head: head, tail: tail, size: size)
    }

    static func truncation(of kind: MediaKind, data: Data) -> String? {
        guard kind == .wav || kind == .ogg else { return nil }
        return truncation(
            of: kind, head: Array(data.prefix(headerBytes)), tail: Array(data.suffix(tailBytes)), size: data.count)
    }

    private static func le32(_ b: [UInt8], _ at: Int) -> Int {
        Int(b[at]) | Int(b[at + 1]) << 8 | Int(b[at + 2]) << 16 | Int(b[at + 3]) << 24
    }

    private static func wavTruncation(_ head: [UInt8], size: Int) -> String? {
        guard head.count >= 12, head[0..<4].elementsEqual("RIFF".utf8), head[8..<12].elementsEqual("WAVE".utf8)
        else { return nil }
        var offset = 12
        while offset + 8 <= head.count {
            let declared = le32(head, offset + 4)
            if head[offset..<offset + 4].elementsEqual("data".utf8) {
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

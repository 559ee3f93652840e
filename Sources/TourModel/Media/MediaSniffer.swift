import FileAccess
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Tells what a media file really is from its first bytes.
///
/// Names lie (an AAC file named `.mp3` is common upstream), and libmpg123 resyncs through anything
/// that contains a sync word, so "no frames" is not enough to recognise non-MPEG data: random bytes
/// would play as noise. MPEG audio is accepted only when two consecutive, mutually consistent frame
/// headers are found, which random data practically never has. A free-format stream (no bitrate
/// in its headers; mpg123 plays it) shows its frame length only by the distance between frames,
/// so it needs three headers at one constant length.
public enum MediaSniffer {
    /// How far into the file (after any ID3v2 tag) MPEG audio is looked for.
    package static let searchWindow = 64 * 1024

    /// What the sniffer learnt, for the probe: where the first MPEG frame is and what it says.
    package struct Report: Sendable {
        package var kind: MediaKind
        package var fileSize: Int
        /// Offset of the first MPEG frame in the file, when `kind == .mp3`.
        package var firstFrameOffset: Int?
        package var header: MPEGFrameHeader?
        package var xing: XingTag?
    }

    /// What the file at `url` looks like. Never throws: a missing file is `.unreadable`.
    public static func sniff(_ url: URL) -> MediaKind { report(url).kind }

    /// What `data` looks like.
    public static func sniff(data: Data) -> MediaKind {
        data.withUnsafeBytes { report($0, fileSize: data.count, baseOffset: 0).kind }
    }

    package static func report(_ url: URL) -> Report {
        // Only a regular file is opened: a FIFO would block here, a device need not end.
        guard let fd = try? InputFile.open(url.path) else { return Report(kind: .unreadable, fileSize: 0) }
        defer { close(fd) }
        return report(fileDescriptor: fd)
    }

    /// The same for an open regular file, read with pread(2) so the descriptor's offset is left
    /// alone for whoever decodes it next.
    package static func report(fileDescriptor fd: Int32) -> Report {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return Report(kind: .unreadable, fileSize: 0) }
        let size = Int(info.st_size)
        if size == 0 { return Report(kind: .empty, fileSize: 0) }
        guard var head = read(fd, count: 10, at: 0) else { return Report(kind: .unreadable, fileSize: size) }
        var base = 0
        // An ID3v2 tag may hold megabytes of cover art: skip it rather than read it.
        if let tagSize = id3v2Size(head) {
            base = tagSize
            head = Data()
        }
        guard let rest = read(fd, count: searchWindow + 8 * 1024 - head.count, at: base + head.count) else {
            return Report(kind: .unreadable, fileSize: size)
        }
        let window = head + rest
        return window.withUnsafeBytes { report($0, fileSize: size, baseOffset: base) }
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file), or nil on a read error.
    private static func read(_ fd: Int32, count: Int, at offset: Int) -> Data? {
        var data = Data(count: count)
        let outcome = data.withUnsafeMutableBytes { Descriptor.readUpTo(fd, into: $0, at: Int64(offset)) }
        return outcome.succeeded ? data.prefix(outcome.written) : nil
    }

    /// The size of the ID3v2 tag at the start of `head` (header, body and footer), if there is one.
    package static func id3v2Size(_ head: Data) -> Int? {
        guard head.count >= 10 else { return nil }
        let b = [UInt8](head.prefix(10))
        guard b[0] == 0x49, b[1] == 0x44, b[2] == 0x33, b[3] != 0xFF, b[4] != 0xFF,
            b[6] & 0x80 == 0, b[7] & 0x80 == 0, b[8] & 0x80 == 0, b[9] & 0x80 == 0
        else { return nil }
        let body = Int(b[6]) << 21 | Int(b[7]) << 14 | Int(b[8]) << 7 | Int(b[9])
        return 10 + body + (b[5] & 0x10 != 0 ? 10 : 0)
    }

    /// Classifies `bytes`, which start at `baseOffset` of a file of `fileSize` bytes.
    package static func report(_ bytes: UnsafeRawBufferPointer, fileSize: Int, baseOffset: Int) -> Report {
        var report = Report(kind: .unknown, fileSize: fileSize)
        if fileSize == 0 || (bytes.isEmpty && baseOffset == 0) { report.kind = .empty; return report }
        // A buffer handed in directly may itself start with an ID3v2 tag.
        if baseOffset == 0, let tag = id3v2Size(Data(bytes.prefix(10))) {
            guard tag < bytes.count else { return report }
            let rest = UnsafeRawBufferPointer(rebasing: bytes[tag...])
            return self.report(rest, fileSize: fileSize, baseOffset: tag)
        }
        func magic(_ at: Int, _ text: String) -> Bool {
            let utf8 = Array(text.utf8)
            guard at + utf8.count <= bytes.count else { return false }
            return utf8.indices.allSatisfy { bytes[at + $0] == utf8[$0] }
        }
        if magic(0, "RIFF"), magic(8, "WAVE") { report.kind = .wav; return report }
        if magic(0, "OggS") { report.kind = .ogg; return report }
        if magic(0, "fLaC") { report.kind = .flac; return report }
        if magic(4, "ftyp") { report.kind = .mp4; return report }
        if isADTS(bytes) { report.kind = .aac; return report }

        let limit = min(bytes.count - 4, searchWindow)
        var offset = 0
        while offset < limit {
            if bytes[offset] == 0xFF, let parsed = MPEGFrameHeader(bytes, at: offset),
                let header = parsed.withFreeFormatLength(in: bytes, at: offset)
            {
                let next = offset + header.frameLength
                let confirmed: Bool
                if let second = MPEGFrameHeader(bytes, at: next) {
                    confirmed = header.isCompatible(with: second)
                } else if header.isFreeFormat {
                    confirmed = false
                } else {
                    // A one-frame file ends exactly where its only frame does.
                    confirmed = baseOffset + next == fileSize && offset == 0
                }
                if confirmed {
                    report.kind = .mp3
                    report.firstFrameOffset = baseOffset + offset
                    report.header = header
                    report.xing = XingTag(bytes, frameAt: offset, header: header)
                    return report
                }
            }
            offset += 1
        }
        return report
    }

    /// Two consecutive ADTS headers (sync 0xFFF, layer 0) with a consistent frame length.
    private static func isADTS(_ bytes: UnsafeRawBufferPointer) -> Bool {
        func header(at i: Int) -> Int? {
            guard i + 7 <= bytes.count, bytes[i] == 0xFF, bytes[i + 1] & 0xF6 == 0xF0 else { return nil }
            let length = (Int(bytes[i + 3]) & 0x03) << 11 | Int(bytes[i + 4]) << 3 | Int(bytes[i + 5]) >> 5
            return length >= 7 ? length : nil
        }
        guard let first = header(at: 0) else { return false }
        return first >= bytes.count || header(at: first) != nil
    }
}

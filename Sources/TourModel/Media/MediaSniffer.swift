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
    /// How far into the file (after any ID3v2 tags) MPEG audio is looked for on two frames.
    package static let searchWindow = 64 * 1024
    /// How far it is looked for on three frames in a row: other bytes before the first frame (a
    /// tool's own header, a download's leftovers) that mpg123 and FFmpeg play through. Random
    /// bytes hold two consistent headers about once in a billion places, three practically never.
    package static let farWindow = 1024 * 1024
    /// ID3v2 tags skipped one after another (a tool that added its own in front of another's).
    static let tagsSkipped = 8

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
        var base = 0
        // An ID3v2 tag may hold megabytes of cover art: skip it rather than read it.
        for _ in 0..<tagsSkipped {
            guard let head = read(fd, count: 10, at: base) else { return Report(kind: .unreadable, fileSize: size) }
            guard let tagSize = id3v2Size(head) else { break }
            base += tagSize
        }
        guard let window = read(fd, count: searchWindow + 8 * 1024, at: base) else {
            return Report(kind: .unreadable, fileSize: size)
        }
        let first = window.withUnsafeBytes { report($0, fileSize: size, baseOffset: base) }
        guard first.kind == .unknown, base + window.count < size else { return first }
        // Further on, only for what the first window did not tell: the bytes after it.
        guard let rest = read(fd, count: farWindow - searchWindow, at: base + window.count) else { return first }
        return (window + rest).withUnsafeBytes { report($0, fileSize: size, baseOffset: base) }
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
    package static func report(
        _ bytes: UnsafeRawBufferPointer, fileSize: Int, baseOffset: Int, tagsAllowed: Int = tagsSkipped
    ) -> Report {
        var report = Report(kind: .unknown, fileSize: fileSize)
        if fileSize == 0 || (bytes.isEmpty && baseOffset == 0) { report.kind = .empty; return report }
        // A buffer handed in directly may itself start with ID3v2 tags (a file's window starts
        // after them): as many as a file's are skipped, not one call deeper for each.
        if tagsAllowed > 0, let tag = id3v2Size(Data(bytes.prefix(10))) {
            guard tag < bytes.count else { return report }
            let rest = UnsafeRawBufferPointer(rebasing: bytes[tag...])
            return self.report(rest, fileSize: fileSize, baseOffset: baseOffset + tag, tagsAllowed: tagsAllowed - 1)
        }
        func magic(_ at: Int, _ text: String) -> Bool {
            let utf8 = Array(text.utf8)
            guard at + utf8.count <= bytes.count else { return false }
            return utf8.indices.allSatisfy { bytes[at + $0] == utf8[$0] }
        }
        if magic(0, "RIFF") || magic(0, "RF64") || magic(0, "BW64"), magic(8, "WAVE") {
            report.kind = .wav
            return report
        }
        if magic(0, "FORM"), magic(8, "AIFF") || magic(8, "AIFC") { report.kind = .aiff; return report }
        if bytes.count >= 4, bytes[0] == 0x1A, bytes[1] == 0x45, bytes[2] == 0xDF, bytes[3] == 0xA3 {
            report.kind = .matroska
            return report
        }
        if magic(0, "OggS") { report.kind = .ogg; return report }
        if magic(0, "fLaC") { report.kind = .flac; return report }
        if magic(4, "ftyp") || isBoxWithoutFileType(bytes) { report.kind = .mp4; return report }
        if isADTS(bytes) { report.kind = .aac; return report }

        let limit = min(bytes.count - 4, farWindow)
        var offset = 0
        while offset < limit {
            if bytes[offset] == 0xFF, let parsed = MPEGFrameHeader(bytes, at: offset),
                let header = parsed.withFreeFormatLength(in: bytes, at: offset)
            {
                let next = offset + header.frameLength
                let confirmed: Bool
                if let second = MPEGFrameHeader(bytes, at: next) {
                    // Beyond the first window, a third frame in a row as well.
                    confirmed =
                        header.isCompatible(with: second)
                        && (offset < searchWindow
                            || MPEGFrameHeader(bytes, at: next + second.frameLength).map(header.isCompatible)
                                == true)
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
        if isADTSCutMidFrame(bytes) { report.kind = .aac }
        return report
    }

    /// An ISO base media file whose first box is not `ftyp`: old QuickTime files start with a
    /// `wide` or `free` box, and a file whose `ftyp` was stripped with its `moov` or `mdat` (FFmpeg
    /// plays both). The box's size must be one (a 64-bit size follows) or at least its header,
    /// and the next box, when it starts within the bytes, must be one of these or `ftyp` too.
    private static func isBoxWithoutFileType(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let types: Set<String> = ["wide", "free", "skip", "moov", "mdat", "pnot"]
        func box(at i: Int) -> (size: Int, type: String)? {
            guard i + 8 <= bytes.count else { return nil }
            let size = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            let type = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(i + 4)..<(i + 8)]), as: UTF8.self)
            return (size, type)
        }
        guard let first = box(at: 0), types.contains(first.type), first.size == 1 || first.size >= 8 else {
            return false
        }
        guard first.size >= 8, let next = box(at: first.size) else { return true }
        return types.contains(next.type) || next.type == "ftyp"
    }

    /// The length of the ADTS frame whose header (sync 0xFFF, layer 0) is at `i`, if one is.
    private static func adtsFrame(_ bytes: UnsafeRawBufferPointer, at i: Int) -> Int? {
        guard i + 7 <= bytes.count, bytes[i] == 0xFF, bytes[i + 1] & 0xF6 == 0xF0 else { return nil }
        let length = (Int(bytes[i + 3]) & 0x03) << 11 | Int(bytes[i + 4]) << 3 | Int(bytes[i + 5]) >> 5
        return length >= 7 ? length : nil
    }

    /// Two consecutive ADTS headers with a consistent frame length.
    private static func isADTS(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let first = adtsFrame(bytes, at: 0) else { return false }
        return first >= bytes.count || adtsFrame(bytes, at: first) != nil
    }

    /// An ADTS stream whose first bytes are the end of a frame (a download resumed at the wrong
    /// byte, a stream recorded from its middle): three headers in a row within the longest frame
    /// ADTS has (8191 bytes) of the start. FFmpeg finds them too.
    private static func isADTSCutMidFrame(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for i in 1..<max(1, min(bytes.count, 8192)) where bytes[i] == 0xFF {
            guard let first = adtsFrame(bytes, at: i), let second = adtsFrame(bytes, at: i + first) else { continue }
            if adtsFrame(bytes, at: i + first + second) != nil { return true }
        }
        return false
    }
}

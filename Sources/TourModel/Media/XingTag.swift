/// The Xing/Info tag LAME (and most encoders) put in the first frame: the frame and byte counts of
/// the whole stream. With it a duration is known exactly from the first kilobytes of a file; without
/// it the stream has to be scanned.
package struct XingTag: Sendable, Hashable {
    /// MPEG frames in the stream, the tag frame itself excluded.
    package var frames: Int?
    /// Bytes of the stream, the tag frame included (what a complete file holds from this frame on).
    package var bytes: Int?

    /// Reads the tag from the frame whose header is at `offset`, or nil when the frame has none.
    package init?(_ buffer: UnsafeRawBufferPointer, frameAt offset: Int, header: MPEGFrameHeader) {
        guard header.layer == 3 else { return nil }
        let start = offset + header.xingOffset
        guard start + 8 <= buffer.count else { return nil }
        let magic = Array(buffer[start..<start + 4])
        guard magic == Array("Xing".utf8) || magic == Array("Info".utf8) else { return nil }
        func be32(_ at: Int) -> Int? {
            guard at + 4 <= buffer.count else { return nil }
            return Int(buffer[at]) << 24 | Int(buffer[at + 1]) << 16 | Int(buffer[at + 2]) << 8 | Int(buffer[at + 3])
        }
        guard let flags = be32(start + 4) else { return nil }
        var cursor = start + 8
        if flags & 1 != 0 { frames = be32(cursor); cursor += 4 }
        if flags & 2 != 0 { bytes = be32(cursor); cursor += 4 }
    }
}

/// One MPEG audio frame header, parsed from its four bytes.
///
/// The sniffer uses it to tell MPEG audio from random bytes that happen to contain a sync word
/// (libmpg123 would happily resync into such bytes and "play" them), and the probe uses it to find
/// the Xing/Info tag that makes a duration exact without decoding.
package struct MPEGFrameHeader: Sendable, Hashable {
    package enum Version: Sendable, Hashable { case mpeg1, mpeg2, mpeg25 }

    package var version: Version
    /// 1, 2 or 3.
    package var layer: Int
    package var hasCRC: Bool
    /// Kilobits per second; 0 for a free-format stream (bitrate index 0), whose frame length the
    /// header does not say: `freeFormatLength` holds it once the stream has shown it.
    package var bitrate: Int
    /// Bytes of an unpadded frame in a free-format stream, learnt from the distance between
    /// frames (`withFreeFormatLength(in:at:)`); nil until then, and for every other stream.
    package var freeFormatLength: Int?
    package var sampleRate: Int
    package var padding: Bool
    package var channels: Int

    private static let bitrates: [[Int]] = [
        [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],  // MPEG-1 layer I
        [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],  // MPEG-1 layer II
        [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],  // MPEG-1 layer III
        [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],  // MPEG-2/2.5 layer I
        [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],  // MPEG-2/2.5 layers II, III
    ]

    /// The largest frame libmpg123 decodes (its MAXFRAMESIZE): a free-format frame is looked for
    /// no further away than this.
    package static let maxFrameLength = 3456

    package var isFreeFormat: Bool { bitrate == 0 }

    /// Parses the header at `bytes[offset...]`, or returns nil when those bytes cannot be one.
    /// A free-format header (bitrate index 0, which the standard allows and mpg123 plays) parses
    /// with `bitrate` 0; its length comes from `withFreeFormatLength(in:at:)`.
    package init?(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        let b0 = bytes[offset], b1 = bytes[offset + 1], b2 = bytes[offset + 2], b3 = bytes[offset + 3]
        guard b0 == 0xFF, b1 & 0xE0 == 0xE0 else { return nil }
        switch (b1 >> 3) & 3 {
        case 0: version = .mpeg25
        case 2: version = .mpeg2
        case 3: version = .mpeg1
        default: return nil
        }
        switch (b1 >> 1) & 3 {
        case 1: layer = 3
        case 2: layer = 2
        case 3: layer = 1
        default: return nil
        }
        hasCRC = b1 & 1 == 0
        let bitrateIndex = Int(b2 >> 4)
        guard bitrateIndex != 15 else { return nil }
        let table = version == .mpeg1 ? layer - 1 : (layer == 1 ? 3 : 4)
        bitrate = bitrateIndex == 0 ? 0 : Self.bitrates[table][bitrateIndex - 1]
        let rateIndex = Int((b2 >> 2) & 3)
        guard rateIndex != 3 else { return nil }
        let base = [44100, 48000, 32000][rateIndex]
        sampleRate = version == .mpeg1 ? base : version == .mpeg2 ? base / 2 : base / 4
        padding = (b2 >> 1) & 1 == 1
        channels = b3 >> 6 == 3 ? 1 : 2
        // Emphasis value 2 is reserved; real encoders never write it.
        guard b3 & 3 != 2 else { return nil }
    }

    /// PCM frames (samples per channel) one MPEG frame decodes to.
    package var samplesPerFrame: Int {
        switch layer {
        case 1: return 384
        case 2: return 1152
        default: return version == .mpeg1 ? 1152 : 576
        }
    }

    /// Bytes a padding bit adds: one slot, 4 bytes in layer I, 1 byte in layers II and III.
    package var paddingLength: Int { layer == 1 ? 4 : 1 }

    /// Bytes from this header to the next one (for a free-format header, once its length is known;
    /// 0 before).
    package var frameLength: Int {
        if isFreeFormat { return freeFormatLength.map { $0 + (padding ? paddingLength : 0) } ?? 0 }
        let bps = bitrate * 1000
        switch layer {
        case 1: return (12 * bps / sampleRate + (padding ? 1 : 0)) * 4
        case 2: return 144 * bps / sampleRate + (padding ? 1 : 0)
        default: return (version == .mpeg1 ? 144 : 72) * bps / sampleRate + (padding ? 1 : 0)
        }
    }

    /// Where a Xing/Info tag would start inside a layer III frame: after the side information.
    package var xingOffset: Int {
        let sideInfo = version == .mpeg1 ? (channels == 1 ? 17 : 32) : (channels == 1 ? 9 : 17)
        return 4 + (hasCRC ? 2 : 0) + sideInfo
    }

    /// True when `other` can follow this header in the same stream (a free-format stream stays
    /// free-format: its frames have no bitrate to switch to).
    package func isCompatible(with other: MPEGFrameHeader) -> Bool {
        other.version == version && other.layer == layer && other.sampleRate == sampleRate
            && other.isFreeFormat == isFreeFormat
    }

    /// This free-format header with its stream's frame length, learnt the way decoders do: the
    /// next compatible header is found at some distance, and a third one exactly where that
    /// length (with each frame's own padding) says it must be. Nil when the bytes do not show
    /// two more frames at one constant length, which random data practically never does.
    package func withFreeFormatLength(in bytes: UnsafeRawBufferPointer, at offset: Int) -> MPEGFrameHeader? {
        guard isFreeFormat else { return self }
        // The smallest frame holds its header and side information.
        let shortest = xingOffset
        var distance = shortest
        while distance <= Self.maxFrameLength, offset + distance + 4 <= bytes.count {
            defer { distance += 1 }
            guard bytes[offset + distance] == 0xFF, let second = MPEGFrameHeader(bytes, at: offset + distance),
                isCompatible(with: second)
            else { continue }
            let length = distance - (padding ? paddingLength : 0)
            guard length >= shortest else { continue }
            let third = offset + distance + length + (second.padding ? paddingLength : 0)
            guard let next = MPEGFrameHeader(bytes, at: third), isCompatible(with: next) else { continue }
            var header = self
            header.freeFormatLength = length
            return header
        }
        return nil
    }
}

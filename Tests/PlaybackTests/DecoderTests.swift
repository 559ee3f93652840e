import Foundation
import Playback
import TestSupport
import Testing
import TourModel

/// Decoding with libmpg123: exact gapless lengths, identical output to the mpg123 reference, both
/// common formats, probing without decoding, blobs and seeking.
@Suite struct DecoderTests {
    /// Decodes the whole stream and returns its PCM bytes.
    static func decodeAll(_ decoder: MP3Decoder) throws -> Data {
        var pcm = Data()
        while let chunk = try decoder.nextChunk() { pcm.append(contentsOf: UnsafeRawBufferPointer(chunk)) }
        return pcm
    }

    @Test func speechAt64kbpsDecodesToExactlyTheSourceSampleCountAndMatchesMpg123ByteForByte() throws {
        let fixture = try FixtureAudio.speech("Welcome to the porticoes of Bologna. Walk slowly.")
        let decoder = try MP3Decoder(contentsOf: fixture.mp3)
        #expect(decoder.format == PCMFormat(sampleRate: 22050, channels: 1))
        let pcm = try Self.decodeAll(decoder)
        #expect(pcm.count / 2 == fixture.frames)
        #expect(decoder.framesDecoded == fixture.frames)
        #expect(decoder.damage == nil)
        let reference = try FixtureAudio.referenceDecode(fixture.mp3)
        #expect(reference.sampleRate == 22050 && reference.channels == 1)
        #expect(reference.pcm.count == pcm.count)
        let same = reference.pcm == pcm  // not diffed: megabytes
        #expect(same)
    }

    @Test func stereo44kHzAt192kbpsPlaysExactly() throws {
        let fixture = try FixtureAudio.tone(
            frames: 100_000, sampleRate: 44100, channels: 2, lameArguments: ["-b", "192"])
        let decoder = try MP3Decoder(contentsOf: fixture.mp3)
        #expect(decoder.format == PCMFormat(sampleRate: 44100, channels: 2))
        let pcm = try Self.decodeAll(decoder)
        #expect(pcm.count / 4 == 100_000)
        let same = try FixtureAudio.referenceDecode(fixture.mp3).pcm == pcm  // not diffed: megabytes
        #expect(same)
    }

    @Test func mono22kHzPlaysExactly() throws {
        let fixture = try FixtureAudio.tone(frames: 33_333, sampleRate: 22050, channels: 1)
        let decoder = try MP3Decoder(contentsOf: fixture.mp3)
        #expect(decoder.format == PCMFormat(sampleRate: 22050, channels: 1))
        #expect(try Self.decodeAll(decoder).count == 33_333 * 2)
    }

    @Test func freeFormatMP3IsMPEGAudioThatDecodesAndProbesExactly() throws {
        // Bitrate index 0 in every header: the frame length shows only as the distance between frames.
        let text = "Free format streams carry no bitrate in their headers."
        let fixture = try FixtureAudio.speech(text, lameArguments: ["--freeformat", "-b", "64"])
        let bytes = try Data(contentsOf: fixture.mp3)
        #expect(bytes[0] == 0xFF && bytes[2] >> 4 == 0, "lame --freeformat wrote a free-format header")
        #expect(MediaSniffer.sniff(fixture.mp3) == .mp3)
        #expect(try AudioProbe.inspect(fixture.mp3).frames == fixture.frames)
        let pcm = try Self.decodeAll(try MP3Decoder(contentsOf: fixture.mp3))
        #expect(pcm.count / 2 == fixture.frames)
        let same = try FixtureAudio.referenceDecode(fixture.mp3).pcm == pcm  // not diffed: megabytes
        #expect(same)

        // Without the LAME tag the probe counts frames; it must agree with decoding.
        let untagged = try FixtureAudio.speech(text, lameArguments: ["--freeformat", "-b", "64", "-t"])
        let reference = try FixtureAudio.referenceDecode(untagged.mp3).pcm
        #expect(try AudioProbe.inspect(untagged.mp3).frames == reference.count / 2)
        let sameUntagged = try Self.decodeAll(try MP3Decoder(contentsOf: untagged.mp3)) == reference  // not diffed
        #expect(sameUntagged)
    }

    @Test func aLoneFreeFormatHeaderIsNotMPEGAudio() {
        // One free-format header and no second or third at a constant distance: random data.
        var bytes = Data([0xFF, 0xF3, 0x00, 0xC4]) + Data(repeating: 0x55, count: 3000)
        #expect(MediaSniffer.sniff(data: bytes) == .unknown)
        // Two frames at 200 bytes and a third somewhere else: still no constant length.
        bytes =
            Data([0xFF, 0xF3, 0x00, 0xC4]) + Data(repeating: 0, count: 196) + Data([0xFF, 0xF3, 0x00, 0xC4])
            + Data(repeating: 0, count: 250) + Data([0xFF, 0xF3, 0x00, 0xC4]) + Data(repeating: 0, count: 300)
        #expect(MediaSniffer.sniff(data: bytes) == .unknown)
        bytes =
            Data([0xFF, 0xF3, 0x00, 0xC4]) + Data(repeating: 0, count: 196) + Data([0xFF, 0xF3, 0x00, 0xC4])
            + Data(repeating: 0, count: 196) + Data([0xFF, 0xF3, 0x00, 0xC4]) + Data(repeating: 0, count: 300)
        #expect(MediaSniffer.sniff(data: bytes) == .mp3)
    }

    @Test func probeReadsTheExactLengthFromTheInfoTag() throws {
        let fixture = try FixtureAudio.speech("The probe must agree with the decoder, sample for sample.")
        let info = try AudioProbe.inspect(fixture.mp3)
        #expect(info.frames == fixture.frames)
        #expect(info.format == PCMFormat(sampleRate: 22050, channels: 1))
        #expect(abs(info.duration - Double(fixture.frames) / 22050) < 1e-9)
    }

    @Test func probeOfAFileWithoutInfoTagScansAndStillMatchesTheDecoder() throws {
        // `lame -t` writes no Xing/Info frame: no gapless data, length unknown from the header.
        let fixture = try FixtureAudio.tone(frames: 20_000, lameArguments: ["-b", "64", "-t"])
        let info = try AudioProbe.inspect(fixture.mp3)
        let decoded = try Self.decodeAll(try MP3Decoder(contentsOf: fixture.mp3)).count / 2
        #expect(info.frames == decoded)
        // Without the tag the encoder delay and padding stay in: more frames than the source.
        #expect(decoded > 20_000)
        #expect(decoded % 576 == 0)
    }

    @Test func probeOfALongFileIsFastBecauseNothingIsDecoded() throws {
        let fixture = try FixtureAudio.tone(seconds: 60)
        let clock = ContinuousClock()
        var info: AudioInfo?
        // The fastest of five, against a whole decode of the same file: a probe that decoded would
        // take as long, and one preemption on a busy machine does not decide.
        let probe = try (0..<5).map { _ in try clock.measure { info = try AudioProbe.inspect(fixture.mp3) } }.min()!
        #expect(info?.frames == fixture.frames)
        let decode = try clock.measure { _ = try FixtureAudio.referenceDecode(fixture.mp3) }
        #expect(probe < .milliseconds(20) || probe * 20 < decode, "probe \(probe), decode \(decode)")
    }

    @Test func blobDecodesTheSameAsTheFile() throws {
        let fixture = try FixtureAudio.speech("A blob in memory.")
        let data = try Data(contentsOf: fixture.mp3)
        let fromBlob = try Self.decodeAll(try MP3Decoder(data: data, name: "blob.mp3"))
        let fromFile = try Self.decodeAll(try MP3Decoder(contentsOf: fixture.mp3))
        #expect(fromBlob == fromFile)
        #expect(try AudioProbe.inspect(data: data).frames == fixture.frames)
    }

    @Test func seekingLandsOnTheExactSample() throws {
        let fixture = try FixtureAudio.speech("Seeking to the middle of a sentence.")
        let whole = try Self.decodeAll(try MP3Decoder(contentsOf: fixture.mp3))
        let decoder = try MP3Decoder(contentsOf: fixture.mp3)
        let target = 12_345
        try decoder.seek(toFrame: target)
        let rest = try Self.decodeAll(decoder)
        #expect(rest.count == whole.count - target * 2)
        #expect(rest == whole.suffix(from: target * 2))
    }
}

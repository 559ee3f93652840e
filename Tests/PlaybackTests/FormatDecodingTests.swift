import Foundation
import TestSupport
import Testing
import TourModel

@testable import Playback

/// Every format the service may hold, decoded by content whatever the name, checked sample by
/// sample against Debian's `ffmpeg` decoding the same file.
@Suite struct FormatDecodingTests {
    typealias Encoding = FormatFixtures.Encoding

    func decodeAll(_ decoder: any AudioDecoder) throws -> Data {
        var pcm = Data()
        while let chunk = try decoder.nextChunk() { pcm.append(contentsOf: UnsafeRawBufferPointer(chunk)) }
        return pcm
    }

    /// The largest difference between two s16 streams, and whether they have the same length.
    func largestDifference(_ a: Data, _ b: Data) -> Int {
        let x = a.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let y = b.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        var largest = 0
        for i in 0..<min(x.count, y.count) { largest = max(largest, abs(Int(x[i]) - Int(y[i]))) }
        return largest
    }

    @Test(arguments: FormatFixtures.encodings)
    func eachFormatDecodesToWhatFFmpegDecodes(_ encoding: Encoding) throws {
        let url = try FormatFixtures.file(encoding)
        let decoder = try AudioDecoders.open(url)
        let pcm = try decodeAll(decoder)
        let reference = try FormatFixtures.reference(url, channels: decoder.format.channels)
        #expect(pcm.count == reference.count, "\(encoding): \(pcm.count) bytes, ffmpeg \(reference.count)")
        if encoding.lossless {
            let same = pcm == reference  // not diffed: megabytes
            #expect(same, "\(encoding)")
        } else {
            #expect(largestDifference(pcm, reference) <= 1, "\(encoding)")
        }
        #expect(decoder.damage == nil)
        #expect(pcm.count > 0)
        // The exact length the preview plays in virtual time is what decoding gives.
        let again = try AudioDecoders.open(url)
        #expect(try again.exactFrameCount() == pcm.count / decoder.format.bytesPerFrame)
        // And the same bytes held in memory decode the same.
        let blob = try AudioDecoders.open(data: try Data(contentsOf: url), name: url.lastPathComponent)
        #expect(try decodeAll(blob) == pcm)
    }

    @Test func ratesAndChannelsAreTheStreamsOwn() throws {
        let expected: [String: (Int, Int)] = [
            "WAV s16 22.05 kHz mono": (22050, 1), "AAC in ADTS 48 kHz stereo": (48000, 2),
            "FLAC 48 kHz stereo": (48000, 2), "WAV A-law 8 kHz": (8000, 1),
        ]
        for encoding in FormatFixtures.encodings {
            guard let (rate, channels) = expected[encoding.name] else { continue }
            let format = try AudioDecoders.open(try FormatFixtures.file(encoding)).format
            #expect(format == PCMFormat(sampleRate: rate, channels: channels), "\(encoding)")
        }
    }

    @Test func anAACFileNamedMP3IsDecodedAsAAC() throws {
        let m4a = try FormatFixtures.file(FormatFixtures.encodings.first { $0.fileExtension == "m4a" }!)
        let dir = try TemporaryDirectory()
        let disguised = dir.file("02.mp3")
        try FileManager.default.copyItem(at: m4a, to: disguised)
        #expect(MediaSniffer.sniff(disguised) == .mp4)
        let pcm = try decodeAll(try AudioDecoders.open(disguised))
        let same = pcm == (try decodeAll(try AudioDecoders.open(m4a)))  // not diffed: megabytes
        #expect(same)
        #expect(AudioDecoders.problem(disguised) == nil)
    }

    @Test(arguments: FormatFixtures.encodings)
    func aTruncatedFilePlaysWhatItHas(_ encoding: Encoding) throws {
        let url = try FormatFixtures.file(encoding)
        let whole = try decodeAll(try AudioDecoders.open(url))
        let bytes = try Data(contentsOf: url)
        let dir = try TemporaryDirectory()
        let cut = dir.file("cut." + encoding.fileExtension)
        try bytes.prefix(bytes.count * 6 / 10).write(to: cut)
        let decoder = try AudioDecoders.open(cut)
        let pcm = try decodeAll(decoder)
        // A good part of the sound (variable bit rates: 60 % of the bytes need not be 60 % of the
        // time), and nothing made up.
        #expect(pcm.count > whole.count / 4, "\(encoding): \(pcm.count) of \(whole.count) bytes")
        #expect(pcm.count <= whole.count, "\(encoding)")
    }

    @Test func garbageAndVideoWithoutSoundAreRefusedInOneLine() throws {
        let dir = try TemporaryDirectory()
        let garbage = dir.file("noise.mp3")
        var generator = SystemRandomNumberGenerator()
        try Data((0..<50_000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: garbage)
        #expect(throws: PlaybackError.self) { try AudioDecoders.open(garbage) }
        let noise = AudioDecoders.problem(garbage)
        #expect(noise == "not audio walkscape plays (not a known audio format)")

        // A video with no sound track, in an MP4 named like a narration.
        let video = dir.file("03.mp3")
        try FormatFixtures.ffmpeg([
            "-f", "lavfi", "-i", "testsrc=size=64x48:rate=5:duration=1", "-c:v", "mpeg4", "-f", "mp4", video.path,
        ])
        #expect(MediaSniffer.sniff(video) == .mp4)
        do {
            _ = try AudioDecoders.open(video)
            Issue.record("a video without sound opened as audio")
        } catch {
            #expect(error.message == "\(video.path): looks like MP4/AAC: holds no audio stream walkscape can decode")
            #expect(!error.message.contains("\n"))
        }
    }

    @Test func aTruncatedMP4WhoseIndexWasAtItsEndIsRefusedInOneLine() throws {
        // Encoded without `faststart`, the index (`moov`) comes last: cut off, nothing says where the
        // audio is. No player can play it; walkscape says so and the walk announces the point.
        let dir = try TemporaryDirectory()
        let whole = dir.file("whole.m4a")
        let source = try FixtureAudio.speech("The old bridge over the river, and its shops of gold.")
        try FormatFixtures.ffmpeg(["-i", source.wav.path, "-c:a", "aac", whole.path])
        let bytes = try Data(contentsOf: whole)
        let cut = dir.file("02.mp3")
        try bytes.prefix(bytes.count / 2).write(to: cut)
        #expect(throws: PlaybackError.self) { try AudioDecoders.open(cut) }
        let problem = try #require(AudioDecoders.problem(cut))
        #expect(problem.hasPrefix("looks like MP4/AAC: cannot be decoded ("), "\(problem)")
        #expect(!problem.contains("\n"))
    }

    @Test func aWAVDeclaringAnImpossibleSampleRateIsRefused() throws {
        // Found by make fuzz-audio: a WAV header claiming 33.5 MHz opened, and its "audio" would have
        // gone to the device (or into durations) at that rate.
        func wav(rate: UInt32) -> Data {
            func le32(_ v: UInt32) -> Data { withUnsafeBytes(of: v.littleEndian) { Data($0) } }
            func le16(_ v: UInt16) -> Data { withUnsafeBytes(of: v.littleEndian) { Data($0) } }
            let samples = Data(repeating: 0, count: 2000)
            return Data("RIFF".utf8) + le32(UInt32(36 + samples.count)) + Data("WAVEfmt ".utf8) + le32(16)
                + le16(1) + le16(1) + le32(rate) + le32(rate * 2) + le16(2) + le16(16)
                + Data("data".utf8) + le32(UInt32(samples.count)) + samples
        }
        #expect(try AudioDecoders.open(data: wav(rate: 22050)).format == PCMFormat(sampleRate: 22050, channels: 1))
        do {
            _ = try AudioDecoders.open(data: wav(rate: 33_562_432), name: "odd.wav")
            Issue.record("a WAV at 33.5 MHz opened")
        } catch {
            #expect(error.message == "odd.wav: looks like WAV: declares an impossible sample rate (33562432 Hz)")
        }
    }

    /// Two ADTS files carelessly concatenated, and a chained Ogg (22.05 kHz mono, then 44.1 kHz
    /// stereo): the part after the change is converted to the first part's format and plays on,
    /// undamaged (the ADTS demuxer stamps the second part's frames at the first part's rate, which
    /// looked like 20 s of a 40 s narration lost). Found by an adversarial pass: the narration stopped at the change.
    /// (By make fuzz-audio before: frames with more channels than the first one made libswresample
    /// read a plane that was not there, a crash.)
    @Test(arguments: ["adts", "ogg"])
    func aStreamThatChangesFormatPartWayPlaysOnConverted(container: String) throws {
        let dir = try TemporaryDirectory()
        let source = try FixtureAudio.speech("The old bridge over the river, and its shops of gold.")
        let first = dir.file("first." + container), second = dir.file("second." + container)
        let codec = container == "adts" ? ["-c:a", "aac", "-f", "adts"] : ["-c:a", "libvorbis"]
        try FormatFixtures.ffmpeg(["-i", source.wav.path, "-ac", "1"] + codec + [first.path])
        try FormatFixtures.ffmpeg(["-i", source.wav.path, "-ac", "2", "-ar", "44100"] + codec + [second.path])
        let both = dir.file("both.mp3")
        try (try Data(contentsOf: first) + Data(contentsOf: second)).write(to: both)
        let decoder = try AudioDecoders.open(both)
        #expect(decoder.format == PCMFormat(sampleRate: 22050, channels: 1))
        let pcm = try decodeAll(decoder)
        // Both parts, each the source's length (less an encoder's priming or so).
        let frames = pcm.count / 2
        #expect(abs(frames - 2 * source.frames) <= 4096, "\(frames) frames, the source twice is \(2 * source.frames)")
        #expect(decoder.damage == nil, "\(decoder.damage ?? "")")
        // The second part sounds: the speech's loudness, not silence.
        let samples = pcm.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let tail = samples[(samples.count * 3 / 4)...]
        #expect(tail.map { abs(Int($0)) }.max() ?? 0 > 3000)
    }

    @Test func seekingIsSampleExact() throws {
        let url = try FormatFixtures.file(FormatFixtures.encodings.first { $0.fileExtension == "ogg" }!)
        let decoder = try AudioDecoders.open(url)
        let whole = try decodeAll(decoder)
        let target = 12_345
        try decoder.seek(toFrame: target)
        let rest = try decodeAll(decoder)
        #expect(rest == whole.suffix(from: whole.startIndex + target * decoder.format.bytesPerFrame))
    }

    @Test func aPointAtAnotherRateFollowsWithoutReopeningTheOutput() async throws {
        // 44.1 kHz mono, then 48 kHz stereo: the output opens in stereo at the first one's rate
        // and stays there; each is converted, so the WAV holds both back to back at 44.1 kHz stereo.
        let first = try FormatFixtures.file(FormatFixtures.encodings.first { $0.name.hasPrefix("Ogg") }!)
        let second = try FormatFixtures.file(FormatFixtures.encodings.first { $0.name.hasPrefix("FLAC") }!)
        let firstPCM = try decodeAll(try AudioDecoders.open(first))
        let secondDecoder = try AudioDecoders.open(second)
        let secondFrames = try decodeAll(secondDecoder).count / secondDecoder.format.bytesPerFrame
        #expect(secondDecoder.format == PCMFormat(sampleRate: 48000, channels: 2))
        let dir = try TemporaryDirectory()
        let out = dir.file("out.wav")
        let sink = WAVFileSink(url: out)
        let queue = AudioQueue(sink: sink)
        await queue.enqueue(first, id: "a")
        await queue.enqueue(second, id: "b")
        let run = try await collect(queue) { $0 == .finished(id: "b") }
        await queue.shutdown()
        #expect(run.milestones == [.started(id: "a"), .finished(id: "a"), .started(id: "b"), .finished(id: "b")])
        let written = try FixtureAudio.readWAV(out)
        #expect(written.sampleRate == 44100 && written.channels == 2)
        // The first file on both channels; the second at 44.1/48 of its length (the converter's
        // edges: a frame).
        let firstHeard = try SampleConverter.convertAll(
            firstPCM, from: PCMFormat(sampleRate: 44100, channels: 1), to: PCMFormat(sampleRate: 44100, channels: 2))
        let firstSame = written.pcm.prefix(firstHeard.count) == firstHeard  // not diffed: megabytes
        #expect(firstSame)
        let converted = (written.pcm.count - firstHeard.count) / 4
        let expected = Double(secondFrames) * 44100 / 48000
        #expect(abs(Double(converted) - expected) <= 2, "\(converted) frames, expected about \(expected)")
    }
}

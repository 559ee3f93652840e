import Foundation
import TestSupport
import Testing

@testable import Playback

/// The real ALSA library on its `file` and `null` devices (there is no sound card here), WAV files,
/// and the messages when a device is missing.
@Suite struct SinkTests {
    @Test func aWAVFileHoldsOneFormatAndRefusesAnother() throws {
        // The audio queue converts later items itself (libswresample); the sink has no second path.
        let dir = try TemporaryDirectory()
        let out = dir.file("one.wav")
        let sink = WAVFileSink(url: out)
        try sink.configure(PCMFormat(sampleRate: 44100, channels: 2))
        let stereo = [Int16](repeating: 1000, count: 4410 * 2)
        try stereo.withUnsafeBytes { try sink.write($0) }
        try sink.configure(PCMFormat(sampleRate: 44100, channels: 2))  // the same format again is fine
        #expect(throws: PlaybackError.self) { try sink.configure(PCMFormat(sampleRate: 22050, channels: 1)) }
        do {
            try sink.configure(PCMFormat(sampleRate: 22050, channels: 1))
        } catch {
            #expect(
                error.message
                    == "\(out.path): cannot write (the file is 44100 Hz, stereo and cannot take 22050 Hz, mono as well)"
            )
        }
        try sink.close()
        let wav = try FixtureAudio.readWAV(out)
        #expect(wav.sampleRate == 44100 && wav.channels == 2 && wav.pcm.count == 4410 * 4)
    }

    @Test func alsaFileDeviceReceivesExactlyTheDecodedPCM() async throws {
        let fixture = try FixtureAudio.speech("Exactly these samples reach the device.")
        let dir = try TemporaryDirectory()
        let raw = dir.file("out.raw")
        let sink = try ALSASink(device: "file:'\(raw.path)',raw")
        let queue = AudioQueue(sink: sink)
        await queue.enqueue(fixture.mp3, id: "p1")
        let run = try await collect(queue) { $0 == .finished(id: "p1") }
        await queue.shutdown()  // closes the device: the file plugin flushes its last period
        #expect(run.milestones == [.started(id: "p1"), .finished(id: "p1")])
        // The speech is 22.05 kHz mono; the output opens in stereo at 44.1 kHz (PlaybackEngine
        // .outputFormat), and the samples are the decoder's converted by libswresample.
        let written = try Data(contentsOf: raw)
        let expected = try SampleConverter.convertAll(
            try decodedPCM(fixture.mp3), from: PCMFormat(sampleRate: 22050, channels: 1),
            to: PCMFormat(sampleRate: 44100, channels: 2))
        #expect(abs(written.count / 4 - fixture.frames * 2) <= 2, "\(written.count / 4) frames")
        let same = written == expected  // not diffed: megabytes
        #expect(same, "\(written.count) bytes against \(expected.count)")
    }

    @Test func anItemOfAnotherFormatIsConvertedAndTheDeviceStaysOpenAtTheFirst() async throws {
        let stereo = try FixtureAudio.tone(
            frames: 30_000, sampleRate: 48000, channels: 2, lameArguments: ["-b", "192"])
        let mono = try FixtureAudio.speech("Mono at 22 kilohertz.")
        let dir = try TemporaryDirectory()
        let raw = dir.file("both.raw")
        let queue = AudioQueue(sink: try ALSASink(device: "file:'\(raw.path)',raw"))
        await queue.enqueue(stereo.mp3, id: "stereo")
        await queue.enqueue(mono.mp3, id: "mono")
        let run = try await collect(queue) { $0 == .finished(id: "mono") }
        await queue.shutdown()
        #expect(
            run.milestones == [
                .started(id: "stereo"), .finished(id: "stereo"), .started(id: "mono"), .finished(id: "mono"),
            ])
        // The device keeps the first item's format (48 kHz stereo): the first plays bit for bit,
        // the 22.05 kHz mono one follows converted, on both channels.
        let written = try Data(contentsOf: raw)
        let first = try decodedPCM(stereo.mp3)
        let firstSame = written.prefix(first.count) == first
        #expect(firstSame)
        let expected = try SampleConverter.convertAll(
            try decodedPCM(mono.mp3), from: PCMFormat(sampleRate: 22050, channels: 1),
            to: PCMFormat(sampleRate: 48000, channels: 2))
        let restSame = written.dropFirst(first.count) == expected
        #expect(restSame, "\(written.count - first.count) bytes against \(expected.count)")
    }

    /// A mono narration at the output's rate, raised by its level: the upmix takes the level in
    /// its own pass, each sample x × level / √2 on both channels, rounded and saturated at full
    /// scale (within a step of rounding of upmixing and scaling one after the other).
    @Test func aRaisedMonoNarrationPlaysItsLevelOnBothChannels() async throws {
        let mono = try FixtureAudio.tone(
            frames: 44_100, sampleRate: 44100, channels: 1, amplitude: 0.8, lameArguments: ["-b", "128"])
        let dir = try TemporaryDirectory()
        let raw = dir.file("raised.raw")
        let queue = AudioQueue(sink: try ALSASink(device: "file:'\(raw.path)',raw"))
        await queue.enqueue(mono.mp3, id: "mono", gainDB: 6)
        _ = try await collect(queue) { $0 == .finished(id: "mono") }
        await queue.shutdown()
        let written = try Data(contentsOf: raw).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let decoded = try decodedPCM(mono.mp3).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(written.count == decoded.count * 2)
        let level = pow(10, 6.0 / 20)
        var worst = 0, clipped = 0
        for (i, x) in decoded.enumerated() where 2 * i + 1 < written.count {
            let due = Int(max(-32768, min(32767, (Double(x) * level / 2.0.squareRoot()).rounded())))
            #expect(written[2 * i] == written[2 * i + 1])
            worst = max(worst, abs(Int(written[2 * i]) - due))
            if abs(due) == 32767 || due == -32768 { clipped += 1 }
        }
        #expect(worst <= 1, "a sample \(worst) steps from x × level / √2")
        #expect(clipped > 0, "0.8 of full scale raised 6 dB, less 3, reaches it")
    }

    /// The output opened at the first narration's format made a walk whose first narration was
    /// mono play every stereo one downmixed (3 LU quieter), and one whose first was 8 kHz play
    /// every later one at 8 kHz. It opens in stereo, at 44.1 kHz at least.
    @Test func aMonoOrLowRateFirstNarrationDoesNotSetTheWalksOutput() async throws {
        let mono = try FixtureAudio.speech("Mono at 22 kilohertz first.")
        let stereo = try FixtureAudio.tone(
            frames: 30_000, sampleRate: 44100, channels: 2, lameArguments: ["-b", "192"])
        let dir = try TemporaryDirectory()
        let out = dir.file("walk.wav")
        let queue = AudioQueue(sink: WAVFileSink(url: out))
        await queue.enqueue(mono.mp3, id: "mono")
        await queue.enqueue(stereo.mp3, id: "stereo")
        _ = try await collect(queue) { $0 == .finished(id: "stereo") }
        await queue.shutdown()
        let wav = try FixtureAudio.readWAV(out)
        #expect(wav.sampleRate == 44100 && wav.channels == 2)
        // The stereo narration after it plays bit for bit, not downmixed and up again.
        let second = try decodedPCM(stereo.mp3)
        let secondSame = wav.pcm.suffix(second.count) == second
        #expect(secondSame)
    }

    /// Nor does a first narration at a studio rate make the whole walk run at it: a second of
    /// 192 kHz before a 45-minute MP3 made the walk cost four times the CPU (everything after
    /// it resampled to 192 kHz). The output runs at 48 kHz at most; the narration plays at its
    /// pitch and length.
    @Test func aHighRateFirstNarrationDoesNotSetTheWalksOutput() async throws {
        let dir = try TemporaryDirectory()
        let high = dir.file("high.flac")
        try FormatFixtures.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=192000:duration=1", high.path])
        let out = dir.file("walk.wav")
        let queue = AudioQueue(sink: WAVFileSink(url: out))
        await queue.enqueue(high, id: "high")
        _ = try await collect(queue) { $0 == .finished(id: "high") }
        await queue.shutdown()
        let wav = try FixtureAudio.readWAV(out)
        #expect(wav.sampleRate == 48000 && wav.channels == 2)
        var samples = [Int16](repeating: 0, count: wav.pcm.count / 2)
        _ = samples.withUnsafeMutableBytes { wav.pcm.copyBytes(to: $0) }
        let left = stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
        #expect(abs(left.count - 48000) <= 48, "\(left.count) frames")
        // 1 kHz: 2,000 sign changes a second.
        let crossings = zip(left, left.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        #expect(abs(crossings - 2000) <= 4, "\(crossings) sign changes")
    }

    @Test func alsaNullDevicePlaysBackToBack() async throws {
        let a = try FixtureAudio.speech("First point.")
        let b = try FixtureAudio.tone(frames: 50_000, sampleRate: 44100, channels: 2, lameArguments: ["-b", "192"])
        let queue = AudioQueue(sink: try ALSASink(device: "null"))
        await queue.enqueue(a.mp3, id: "a")
        await queue.enqueue(b.mp3, id: "b")
        let run = try await collect(queue) { $0 == .finished(id: "b") }
        await queue.shutdown()
        #expect(run.milestones == [.started(id: "a"), .finished(id: "a"), .started(id: "b"), .finished(id: "b")])
    }

    @Test func alsaPositionClockCountsFramesHeard() throws {
        let sink = try ALSASink(device: "null")
        try sink.configure(PCMFormat(sampleRate: 22050, channels: 1))
        let silence = [Int16](repeating: 0, count: 22050)
        try silence.withUnsafeBytes { try sink.write($0) }
        try sink.drain()
        #expect(sink.playedFrames == 22050)
        #expect(sink.underruns == 0)
        try sink.close()
    }

    /// The library says what failed; the way out (which flags) is the command line's to word
    /// (PlayCommandTests checks it).
    @Test func missingDeviceFailsWithOurMessageNamingTheDevice() throws {
        #expect(throws: PlaybackError.noSoundCard(device: "nosuchcard", reason: "No such file or directory")) {
            try ALSASink(device: "nosuchcard")
        }
        do {
            _ = try ALSASink(device: "hw:9")
            Issue.record("hw:9 opened on a machine without sound cards")
        } catch {
            #expect(error.message.hasPrefix("no sound card: could not open ALSA device 'hw:9' ("))
            #expect(error.message.hasSuffix(")"))
            #expect(!error.message.contains("--"), "a library error names no flag: \(error.message)")
            #expect(error.exitCode == 69)
        }
    }

    @Test func wavFileSinkWritesAPlayableWAVOfTheDecodedPCM() async throws {
        let fixture = try FixtureAudio.speech("Written to a WAV file.")
        let dir = try TemporaryDirectory()
        let out = dir.file("out.wav")
        let queue = AudioQueue(sink: WAVFileSink(url: out))
        await queue.enqueue(fixture.mp3, id: "p")
        _ = try await collect(queue) { $0 == .finished(id: "p") }
        await queue.shutdown()
        let wav = try FixtureAudio.readWAV(out)
        #expect(wav.sampleRate == 44100 && wav.channels == 2)
        let expected = try SampleConverter.convertAll(
            try decodedPCM(fixture.mp3), from: PCMFormat(sampleRate: 22050, channels: 1),
            to: PCMFormat(sampleRate: 44100, channels: 2))
        let same = wav.pcm == expected
        #expect(same, "\(wav.pcm.count) bytes against \(expected.count)")
        // The header's sizes are patched on close.
        let bytes = [UInt8](try Data(contentsOf: out))
        let riff = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        #expect(riff == bytes.count - 8)
    }

    @Test func pacedSinkClockStopsWhenItRunsDry() throws {
        let inner = NullSink()
        let sink = PacedSink(wrapping: inner, lead: .milliseconds(50))
        try sink.configure(PCMFormat(sampleRate: 10_000, channels: 1))
        let tenth = [Int16](repeating: 0, count: 1000)  // 0.1 s
        try tenth.withUnsafeBytes { try sink.write($0) }
        Thread.sleep(forTimeInterval: 0.3)
        // Only 0.1 s was written: the clock cannot have heard more, however long we waited.
        #expect(sink.playedFrames == 1000)
        try tenth.withUnsafeBytes { try sink.write($0) }
        // Playback resumed after the gap: the write returned once only the 50 ms lead was left
        // queued (~1500 heard), not with the second tenth counted as heard during the gap (2000).
        let played = sink.playedFrames
        #expect(played >= 1400 && played < 1800)
        try sink.drain()
        #expect(sink.playedFrames == 2000)
        #expect(inner.totalFrames == 2000)
    }

    @Test(arguments: ["null", "file", "plug:null"])
    func alsaDevicesWithoutAClockSaySoOnTheirFirstWrite(device: String) throws {
        let dir = try TemporaryDirectory()
        let name = device == "file" ? "file:'\(dir.file("out.raw").path)',raw" : device
        let sink = try ALSASink(device: name)
        #expect(sink.keepsTime)  // nothing written yet: assumed a sound card
        try sink.configure(PCMFormat(sampleRate: 22050, channels: 1))
        try [Int16](repeating: 0, count: 2205).withUnsafeBytes { try sink.write($0) }
        #expect(!sink.keepsTime)
        try sink.close()
    }

    @Test func pacedSinkMakesTheALSANullDeviceTakeRealTime() throws {
        let sink = PacedSink(wrapping: try ALSASink(device: "null"), lead: .milliseconds(50))
        try sink.configure(PCMFormat(sampleRate: 10_000, channels: 1))
        let started = ContinuousClock.now
        let tenth = [Int16](repeating: 0, count: 1000)
        for _ in 0..<5 { try tenth.withUnsafeBytes { try sink.write($0) } }
        #expect(ContinuousClock.now - started >= .milliseconds(420))  // 0.5 s less the 50 ms lead
        #expect(sink.playedFrames < 5000)
        try sink.drain()
        #expect(ContinuousClock.now - started >= .milliseconds(500))
        #expect(sink.playedFrames == 5000)
    }

    /// A sink with a clock of its own, as a sound card is (a seam: there is no sound card here).
    final class ClockedSink: PCMSink, @unchecked Sendable {
        var written = 0
        func configure(_ format: PCMFormat) throws(PlaybackError) {}
        func write(_ pcm: UnsafeRawBufferPointer) throws(PlaybackError) { written += pcm.count / 2 }
        func drain() throws(PlaybackError) {}
        var playedFrames: Int { written / 2 }
        var keepsTime: Bool { true }
        func close() throws(PlaybackError) {}
    }

    @Test func pacedSinkStepsAsideForASinkThatKeepsTime() throws {
        let inner = ClockedSink()
        let sink = PacedSink(wrapping: inner, lead: .milliseconds(50))
        try sink.configure(PCMFormat(sampleRate: 10_000, channels: 1))
        let started = ContinuousClock.now
        try [Int16](repeating: 0, count: 50_000).withUnsafeBytes { try sink.write($0) }  // 5 s
        try sink.drain()
        #expect(ContinuousClock.now - started < .seconds(1))  // the device's clock, not ours
        #expect(sink.playedFrames == 25_000)  // what the device says it played
    }

}

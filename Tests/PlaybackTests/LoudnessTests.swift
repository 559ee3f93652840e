import Foundation
import TestSupport
import Testing
import TourModel

@testable import Playback

/// Loudness (docs/loudness.md): the meter agrees with ffmpeg's EBU R128 filter, and a queue given
/// each narration's gain plays a quiet one as loud as its neighbours; unity gain changes nothing.
@Suite struct LoudnessTests {
    static let text = "The fountain in the square was built in the year of the great flood."

    static func pcm(_ url: URL) throws -> Data {
        let decoder = try AudioDecoders.open(url)
        var pcm = Data()
        while let chunk = try decoder.nextChunk() { pcm.append(contentsOf: UnsafeRawBufferPointer(chunk)) }
        return pcm
    }

    /// The file's PCM as a queue whose output it opened writes it: stereo, at 44.1 kHz at least
    /// (the speech fixtures are 22.05 kHz mono), converted by libswresample.
    static func heard(_ url: URL) throws -> Data {
        let format = try AudioDecoders.open(url).format
        return try SampleConverter.convertAll(
            try pcm(url), from: format, to: PlaybackEngine.outputFormat(first: format))
    }

    @Test(arguments: FormatFixtures.encodings.filter { !$0.name.contains("8 kHz") })
    func theMeterAgreesWithFFmpeg(_ encoding: FormatFixtures.Encoding) throws {
        let url = try FormatFixtures.file(encoding)
        let measured = try LoudnessMeter.measure(url)
        let reference = try FormatFixtures.ebur128(url)
        let integrated = try #require(measured.integrated)
        let expected = try #require(reference.integrated)
        #expect(abs(integrated - expected) <= 0.2, "\(encoding): \(integrated) LUFS, ffmpeg \(expected)")
        let peak = try #require(measured.truePeak)
        #expect(abs(peak - reference.truePeak) <= 0.5, "\(encoding): \(peak) dBTP, ffmpeg \(reference.truePeak)")
        #expect(measured.clippedRuns == 0)
        #expect(measured.seconds > 2 && measured.seconds < 10)
    }

    @Test func aStereoFileWhoseChannelsPartLateIsMeasuredAsStereo() throws {
        // Alike for 3 s, then the right channel goes its own way, louder: both channels count.
        let dir = try TemporaryDirectory()
        let url = dir.file("parting.wav")
        var samples: [Int16] = []
        for n in 0..<(22050 * 6) {
            let t = Double(n) / 22050
            let left = 0.2 * sin(2 * Double.pi * 440 * t)
            let right = t < 3 ? left : 0.6 * sin(2 * Double.pi * 660 * t)
            samples += [Int16((left * 32767).rounded()), Int16((right * 32767).rounded())]
        }
        try FixtureAudio.writeWAV(samples, sampleRate: 22050, channels: 2, to: url)
        let measured = try LoudnessMeter.measure(url)
        let reference = try FormatFixtures.ebur128(url)
        #expect(abs((measured.integrated ?? 0) - (reference.integrated ?? 99)) <= 0.2, "\(measured) \(reference)")
        #expect(abs((measured.truePeak ?? 0) - reference.truePeak) <= 0.3)
        #expect(abs(measured.seconds - 6) < 0.001)

        // The same channel twice: R128 counts it twice, as ffmpeg does.
        let alike = dir.file("alike.wav")
        try FixtureAudio.writeWAV(
            (0..<(22050 * 6)).flatMap { n -> [Int16] in
                let value = Int16((0.2 * 32767 * sin(2 * Double.pi * 440 * Double(n) / 22050)).rounded())
                return [value, value]
            }, sampleRate: 22050, channels: 2, to: alike)
        let twin = try LoudnessMeter.measure(alike)
        let twinReference = try FormatFixtures.ebur128(alike)
        #expect(abs((twin.integrated ?? 0) - (twinReference.integrated ?? 99)) <= 0.2, "\(twin) \(twinReference)")
    }

    @Test func theTruePeakFindsWhatLiesBetweenSamples() {
        // A sine at a quarter of the sample rate, sampled 45° off its crests: every sample is at
        // 0.707 of the peak, which lies between them (+3 dB). Fed in uneven pieces, stereo.
        let amplitude = 0.5
        let frames = 4000
        var samples: [Int16] = []
        for n in 0..<frames {
            let value = Int16((amplitude * 32768 * sin(Double.pi / 2 * Double(n) + Double.pi / 4)).rounded())
            samples += [value, value / 2]
        }
        var meter = TruePeak(channels: 2)
        var start = 0
        for size in [1, 2, 7, 100, 333, 1000] + Array(repeating: 1000, count: 10) where start < samples.count {
            let end = min(samples.count, start + size * 2)
            samples[start..<end].withUnsafeBufferPointer { meter.add($0) }
            start = end
        }
        let peak = meter.finish()
        #expect(abs(Double(meter.samplePeak) - amplitude * 0.7071) < 0.001)
        #expect(abs(peak - amplitude) < 0.01, "true peak \(peak), expected \(amplitude)")
    }

    @Test func silenceIsSilentAndAHardClippedToneIsClipped() throws {
        let silent = try LoudnessMeter.measure(try FixtureAudio.silence(seconds: 2).wav)
        #expect(silent.isSilent && silent.truePeak == nil && !silent.isClipped)
        #expect(LoudnessTarget.standard.gainDB(for: silent) == 0)

        let dir = try TemporaryDirectory()
        let clipped = dir.file("clipped.wav")
        // A tone at twice full scale, flattened at the rails: two runs per cycle.
        let samples = (0..<22050).map { i -> Int16 in
            let value = 2 * 32767 * sin(2 * Double.pi * 220 * Double(i) / 22050)
            return Int16(max(-32768, min(32767, value)))
        }
        try FixtureAudio.writeWAV(samples, sampleRate: 22050, channels: 1, to: clipped)
        let measured = try LoudnessMeter.measure(clipped)
        #expect(measured.clippedRuns >= 400, "\(measured.clippedRuns) runs")
        #expect((measured.truePeak ?? -99) >= 0)
    }

    /// The silence at either end is found to a block (0.1 s), in any channel, in a file whose
    /// last block is partial, and said to a tenth; a silent file has none.
    @Test func theSilenceAtEitherEndIsFoundToATenthOfASecond() throws {
        let dir = try TemporaryDirectory()
        let rate = 22050
        // Stereo: 1.25 s of nothing, 1 s of tone in the right channel alone, 0.37 s of nothing.
        let lead = Int(1.25 * Double(rate))
        let sound = rate
        let tail = Int(0.37 * Double(rate))
        var samples = [Int16](repeating: 0, count: 2 * (lead + sound + tail))
        for i in 0..<sound {
            samples[2 * (lead + i) + 1] = Int16(0.3 * 32767 * sin(2 * Double.pi * 440 * Double(i) / Double(rate)))
        }
        let file = dir.file("edges.wav")
        try FixtureAudio.writeWAV(samples, sampleRate: rate, channels: 2, to: file)
        let measured = try LoudnessMeter.measure(file)
        // The tone begins half-way through the block from 1.2 s and ends half-way through the
        // block to 2.3 s; the file ends at 2.62 s: 0.32 s after it, to a tenth.
        #expect(abs((measured.leadingSilence ?? -1) - 1.2) < 1e-9, "\(measured)")
        #expect(abs((measured.trailingSilence ?? -1) - 0.3) < 1e-9, "\(measured)")

        let silent = try LoudnessMeter.measure(try FixtureAudio.silence(seconds: 2).wav)
        #expect(silent.leadingSilence == nil && silent.trailingSilence == nil)
    }

    /// The file's samples as floats, full scale 1, as ffmpeg decodes it (unclipped).
    static func floats(_ url: URL, channels: Int) throws -> [Float] {
        let dir = try TemporaryDirectory()
        let raw = dir.file("decoded.f32")
        try FormatFixtures.ffmpeg(["-i", url.path, "-ac", "\(channels)", "-f", "f32le", "-c:a", "pcm_f32le", raw.path])
        let data = try Data(contentsOf: raw)
        var values = [Float](repeating: 0, count: data.count / 4)
        _ = values.withUnsafeMutableBytes { data.copyBytes(to: $0) }
        return values
    }

    /// A narration mastered past full scale in a format FFmpeg decodes (float WAV, AAC, Opus):
    /// levelled down, it plays as recorded, unclipped, and is measured so, as an MP3 is. It was cut
    /// at full scale before it was turned down: speech 12 dB hot in a float WAV played with its
    /// peaks flattened (signal to error 15 dB), measured 7.5 dB of peak too low, and its clipping
    /// counted thousands of times.
    @Test(arguments: ["wav", "m4a", "opus"])
    func aNarrationMasteredPastFullScalePlaysUnclippedWhenTurnedDown(_ fileExtension: String) async throws {
        let dir = try TemporaryDirectory()
        let hot = dir.file("hot.\(fileExtension)")
        let codec =
            switch fileExtension {
            case "wav": ["-c:a", "pcm_f32le"]
            case "m4a": ["-c:a", "aac", "-b:a", "128k"]
            default: ["-c:a", "libopus", "-b:a", "96k"]
            }
        try FormatFixtures.ffmpeg(
            ["-i", try FixtureAudio.speech(Self.text).wav.path, "-af", "volume=12dB", "-ar", "48000", "-ac", "2"]
                + codec
                + [hot.path])
        let reference = try FormatFixtures.ebur128(hot)
        #expect(reference.truePeak > 4, "the fixture is not hot: \(reference)")
        let measured = try LoudnessMeter.measure(hot)
        #expect(abs((measured.truePeak ?? -99) - reference.truePeak) <= 0.5, "\(measured) against \(reference)")
        #expect(
            abs((measured.integrated ?? -99) - (reference.integrated ?? 0)) <= 0.3, "\(measured) against \(reference)")

        // Played 14 dB down: each sample is the unclipped decoding's, to a step or two.
        let level = Float(LoudnessTarget.factor(-14))
        let played = try await played([hot], gains: [-14])
        var heard = [Int16](repeating: 0, count: played.pcm.count / 2)
        _ = heard.withUnsafeMutableBytes { played.pcm.copyBytes(to: $0) }
        let expected = try Self.floats(hot, channels: 2)
        #expect(heard.count == expected.count)
        var worst: Float = 0
        for (sample, value) in zip(heard, expected) {
            worst = max(worst, abs(Float(sample) - max(-32768, min(32767, (value * level * 32768).rounded()))))
        }
        #expect(worst <= 2, "\(fileExtension): off by up to \(worst) steps")
    }

    /// A narration in 5.1 or 7.1 (speech in the centre) is measured as its downmix plays, and plays
    /// levelled at the target: in float the downmix went unscaled (libswresample scales it only
    /// for 16-bit output), so levelled with a 16-bit reading's figures it played 5-9 dB over the
    /// target, clipped in tens of thousands of places, and read in float it measured 7 dB louder
    /// than it plays as recorded.
    @Test(arguments: ["5.1", "7.1"])
    func aSurroundNarrationPlaysAtTheTarget(_ layout: String) async throws {
        let dir = try TemporaryDirectory()
        let surround = dir.file("surround.flac")
        try FormatFixtures.ffmpeg([
            "-i", try FixtureAudio.speech(Self.text).wav.path, "-af", "pan=\(layout)|FC=c0", "-ar", "48000",
            surround.path,
        ])
        let measured = try LoudnessMeter.measure(surround)
        let unity = try await played([surround], gains: [0])
        let asRecorded = try FormatFixtures.ebur128(unity.wav)
        #expect(abs((measured.integrated ?? 0) - (asRecorded.integrated ?? -99)) <= 0.3, "\(measured), \(asRecorded)")
        let gain = AudioQueue.gainDB(.standard, for: measured, channels: 2)
        let played = try await played([surround], gains: [gain])
        let heard = try FormatFixtures.ebur128(played.wav)
        let level = try #require(heard.integrated)
        // On the target, or under it where the peaks hold it.
        #expect(level <= -15.5 && level >= -19, "\(layout): played at \(level) LUFS")
        #expect(heard.truePeak <= -0.5, "\(layout): peak \(heard.truePeak)")
        #expect(abs(level - ((measured.integrated ?? 0) + gain)) <= 0.5, "\(layout): \(level), measured \(measured)")
    }

    /// A mono MP3 mastered past full scale, levelled down: the upmix's 3 dB are taken in the
    /// decoder with the level, so nothing is cut at full scale before it. Its peaks were flattened
    /// at 32767/√2 (503 samples there, signal to error 36 dB).
    @Test func aHotMonoMP3PlaysUnclippedWhenTurnedDown() async throws {
        let dir = try TemporaryDirectory()
        let hot = dir.file("hot.mp3")
        try FormatFixtures.ffmpeg([
            "-i", try FixtureAudio.speech(Self.text).wav.path, "-af", "volume=12dB", "-ar", "44100", "-c:a",
            "libmp3lame", "-b:a", "64k", hot.path,
        ])
        let gain = -8.0
        let played = try await played([hot], gains: [gain])
        var heard = [Int16](repeating: 0, count: played.pcm.count / 2)
        _ = heard.withUnsafeMutableBytes { played.pcm.copyBytes(to: $0) }
        let loudest = heard.map { abs(Int32($0)) }.max() ?? 0
        let atLoudest = heard.filter { abs(Int32($0)) >= loudest - 1 }.count
        // ffmpeg's float decoding, levelled and upmixed (3 dB down on each channel).
        let peak = try Self.floats(hot, channels: 1).map(abs).max() ?? 0
        let expected = peak * Float(LoudnessTarget.factor(gain)) * Float(0.5.squareRoot()) * 32768
        #expect(expected < 32767, "the fixture is too hot to play unclipped: \(expected)")
        #expect(abs(Float(loudest) - expected) <= expected * 0.01, "loudest \(loudest), expected \(expected)")
        // Both channels of a few peak frames, not a flattened run.
        #expect(atLoudest <= 8, "\(atLoudest) samples at the loudest, \(loudest)")
    }

    /// A narration recorded on one channel of a stereo file (a lavalier into one input), the
    /// other silent, plays on both channels as its mono recording would: it played
    /// in one ear alone, 3 dB under the mono recording, and a walker with one earbud in the other
    /// ear heard nothing.
    @Test(arguments: [0, 1])
    func aNarrationOnOneChannelPlaysOnBothAsItsMonoWould(channel: Int) async throws {
        let dir = try TemporaryDirectory()
        let mono = try FixtureAudio.speech(Self.text).wav
        let (rate, _, pcm) = try FixtureAudio.readWAV(mono)
        var samples = [Int16](repeating: 0, count: pcm.count / 2)
        _ = samples.withUnsafeMutableBytes { pcm.copyBytes(to: $0) }
        var stereo = [Int16](repeating: 0, count: samples.count * 2)
        for (i, sample) in samples.enumerated() {
            stereo[2 * i + channel] = sample
            // The other channel: a noise floor 50 dB under the speech, not digital silence.
            stereo[2 * i + 1 - channel] = Int16(i % 7 == 0 ? 2 : i % 5 == 0 ? -2 : 0)
        }
        let oneSided = dir.file("one-sided.wav")
        try FixtureAudio.writeWAV(stereo, sampleRate: rate, channels: 2, to: oneSided)
        func play(_ url: URL) async throws -> Data {
            let out = dir.file("out-\(url.lastPathComponent)")
            let queue = AudioQueue(sink: WAVFileSink(url: out), positionInterval: nil)
            await queue.enqueue(url, id: "n", loudness: try LoudnessMeter.measure(url), target: .standard)
            _ = try await collect(queue) { $0 == .finished(id: "n") }
            await queue.shutdown()
            return try FixtureAudio.readWAV(out).pcm
        }
        func int16s(_ data: Data) -> [Int16] {
            var values = [Int16](repeating: 0, count: data.count / 2)
            _ = values.withUnsafeMutableBytes { data.copyBytes(to: $0) }
            return values
        }
        let asMono = int16s(try await play(mono))
        let heard = int16s(try await play(oneSided))
        #expect(heard.count == asMono.count)
        // Both channels alike, each within a step of the mono recording's (the silent channel's
        // floor is a millionth of the loudness measured).
        let unlike = stride(from: 0, to: heard.count - 1, by: 2).filter { heard[$0] != heard[$0 + 1] }.count
        #expect(unlike == 0, "\(unlike) frames differ between the channels")
        let worst = zip(heard, asMono).map { abs(Int($0) - Int($1)) }.max() ?? -1
        #expect(worst <= 1, "off the mono recording's by up to \(worst) steps")
    }

    /// What a queue writes for `files` played with the gains `gains` (dB).
    func played(_ files: [URL], gains: [Double]) async throws -> (wav: URL, pcm: Data, dir: TemporaryDirectory) {
        let dir = try TemporaryDirectory()
        let out = dir.file("out.wav")
        let queue = AudioQueue(sink: WAVFileSink(url: out), positionInterval: nil)
        for (i, file) in files.enumerated() { await queue.enqueue(file, id: "\(i)", gainDB: gains[i]) }
        let last = "\(files.count - 1)"
        _ = try await collect(queue) { $0 == .finished(id: last) }
        await queue.shutdown()
        return (out, try FixtureAudio.readWAV(out).pcm, dir)
    }

    @Test func aNarrationTwelveDecibelsQuieterPlaysWithinOneLUOfItsNeighbours() async throws {
        let normal = try FormatFixtures.speech(Self.text, gainDB: 0)
        let quiet = try FormatFixtures.speech(Self.text, gainDB: -12, fileExtension: "flac")
        let files = [normal, quiet, normal]
        let loudness = try files.map { try LoudnessMeter.measure($0) }
        #expect(abs((loudness[0].integrated ?? 0) - (loudness[1].integrated ?? 0) - 12) < 0.3)
        let gains = loudness.map { LoudnessTarget.standard.gainDB(for: $0) }
        let output = try await played(files, gains: gains)

        // Each narration's stretch of the output, measured by ffmpeg's own EBU R128 filter.
        let frames = try files.map { try Self.heard($0).count / 4 }
        var start = 0
        var levels: [Double] = []
        for count in frames {
            let measured = try FormatFixtures.ebur128(output.wav, frames: start..<(start + count))
            levels.append(try #require(measured.integrated))
            #expect(measured.truePeak <= LoudnessTarget.peakCeiling + 0.3, "peak \(measured.truePeak) dBFS")
            start += count
        }
        #expect(output.pcm.count == start * 4)
        #expect(levels.max()! - levels.min()! <= 1, "levels \(levels)")
        // Without levelling the same files are 12 LU apart.
        let asRecorded = try await played(files, gains: [0, 0, 0])
        let quietStretch = try FormatFixtures.ebur128(asRecorded.wav, frames: frames[0]..<(frames[0] + frames[1]))
        #expect(levels[0] - (quietStretch.integrated ?? -99) > 11)
    }

    @Test func unityGainGivesTheDecodersSamples() async throws {
        let quiet = try FormatFixtures.speech(Self.text, gainDB: -12)
        let other = try FixtureAudio.speech("Turn left at the church.").wav
        let output = try await played([quiet, other], gains: [0, 0])
        let expected = try Self.heard(quiet) + Self.heard(other)
        let same = output.pcm == expected  // not diffed: megabytes
        #expect(same, "\(output.pcm.count) bytes against \(expected.count)")
    }

    /// The gain in fixed point, every 16-bit sample at factors below, at and above unity: each is
    /// the exact product rounded half away from zero and saturated at full scale.
    @Test(arguments: [0, 0.25, 0.5, 0.70795, 1, 1.41254, 2, 3.98107, 31.6228, 32, 40] as [Float])
    func theGainRoundsHalfAwayFromZeroAndSaturates(factor: Float) {
        var samples = (Int(Int16.min)...Int(Int16.max)).map { Int16($0) }
        samples.withUnsafeMutableBufferPointer { PlaybackEngine.scale($0, by: factor) }
        let q = Double((min(32, max(0, factor)) * 1024).rounded())
        var wrong = 0
        for (index, value) in (Int(Int16.min)...Int(Int16.max)).enumerated() {
            let exact = (Double(value) * q / 1024).rounded(.toNearestOrAwayFromZero)
            if samples[index] != Int16(min(32767, max(-32768, exact))) { wrong += 1 }
        }
        #expect(wrong == 0)
    }

    /// A mono narration plays on both channels 3 dB down; held back by its own peak, it stopped
    /// 3 dB under the ceiling it was held for (-4 dBTP, 3 LU quieter than its stereo neighbours).
    @Test func aMonoNarrationHeldByItsPeakTakesTheRoomItsUpmixLeaves() async throws {
        let mono = try FixtureAudio.speech("Held back by its own peak, on both channels.").mp3
        let loudness = try LoudnessMeter.measure(mono)
        let target = LoudnessTarget.lufs(-5)  // far above what the peak allows
        let stereoGain = target.gainDB(for: loudness)
        let monoGain = target.gainDB(for: loudness, peakOffsetDB: AudioQueue.monoUpmixDB)
        #expect(abs(monoGain - stereoGain - 3.01) < 0.01, "\(stereoGain) \(monoGain)")
        let dir = try TemporaryDirectory()
        let out = dir.file("mono.wav")
        let queue = AudioQueue(sink: WAVFileSink(url: out))
        await queue.enqueue(mono, id: "mono", loudness: loudness, target: target)
        _ = try await collect(queue) { $0 == .finished(id: "mono") }
        await queue.shutdown()
        let frames = try FixtureAudio.readWAV(out).pcm.count / 4
        let measured = try FormatFixtures.ebur128(out, frames: 0..<frames)
        #expect(abs(measured.truePeak - LoudnessTarget.peakCeiling) < 0.5, "peak \(measured.truePeak) dBTP")
    }

    /// An MP3 mastered past full scale: its 16-bit samples clip, but libmpg123 lowers it inside its
    /// synthesis when it is levelled, so what plays is the whole signal. Measured on the clipped
    /// samples it read too low (1.3 LU and 9 dB of peak) and played over the target and the ceiling.
    @Test func anMP3MasteredPastFullScaleIsMeasuredAndPlayedUnclipped() async throws {
        let source = try FixtureAudio.speech("Mastered far too loud for sixteen bits.").wav
        let dir = try TemporaryDirectory()
        let hot = dir.file("hot.mp3")
        try FormatFixtures.ffmpeg([
            "-i", source.path, "-af", "volume=14dB", "-c:a", "libmp3lame", "-b:a", "128k", hot.path,
        ])
        let measured = try LoudnessMeter.measure(hot)
        let reference = try FormatFixtures.ebur128(hot)  // ffmpeg decodes to float: nothing clipped
        #expect(measured.isClipped)  // as recorded, it clips: lint says so
        #expect(abs((measured.integrated ?? 0) - (reference.integrated ?? 99)) < 0.5, "\(measured) \(reference)")
        #expect(abs((measured.truePeak ?? 0) - reference.truePeak) < 0.5, "\(measured) \(reference)")
        let out = dir.file("played.wav")
        let queue = AudioQueue(sink: WAVFileSink(url: out))
        await queue.enqueue(hot, id: "hot", loudness: measured, target: .standard)
        _ = try await collect(queue) { $0 == .finished(id: "hot") }
        await queue.shutdown()
        let played = try FormatFixtures.ebur128(out)
        #expect(abs((played.integrated ?? 0) - -16) < 0.5, "\(played)")
        #expect(played.truePeak <= LoudnessTarget.peakCeiling + 0.3, "\(played)")
    }

    @Test func theGainStopsAtTheTruePeakCeilingAndAtThirtyDecibels() {
        let peaky = Loudness(integrated: -30, truePeak: -3, seconds: 10)
        #expect(LoudnessTarget.standard.gainDB(for: peaky) == 2)  // -1 dBTP, not -16 LUFS
        let plain = Loudness(integrated: -30, truePeak: -20, seconds: 10)
        #expect(LoudnessTarget.standard.gainDB(for: plain) == 14)
        #expect(LoudnessTarget.lufs(-23).gainDB(for: Loudness(integrated: -10, truePeak: -2, seconds: 1)) == -13)
        #expect(LoudnessTarget.standard.gainDB(for: Loudness(integrated: -65, truePeak: -60, seconds: 1)) == 30)
        #expect(LoudnessTarget.off.gainDB(for: plain) == 0)
        #expect(LoudnessTarget.standard.gainDB(for: nil) == 0)
        #expect(LoudnessTarget(parsing: "-16") == .lufs(-16))
        #expect(LoudnessTarget(parsing: " -18.5 LUFS") == .lufs(-18.5))
        #expect(LoudnessTarget(parsing: "OFF") == .off)
        for bad in ["3", "-41", "loud", "", "nan", "-inf"] { #expect(LoudnessTarget(parsing: bad) == nil, "\(bad)") }
    }
}

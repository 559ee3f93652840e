import Foundation
import Playback
import TestSupport
import Testing
import TourModel

/// Media that is not what its name says, or not whole: each is recognised, reported in one line,
/// and never stalls the queue.
@Suite struct BadMediaTests {
    /// The start of a real M4A (AAC in MP4): an `ftyp` box, then `free` and `mdat` boxes.
    static func mp4Bytes() -> Data {
        var data = Data()
        func box(_ type: String, _ body: [UInt8]) {
            let size = UInt32(8 + body.count).bigEndian
            withUnsafeBytes(of: size) { data.append(contentsOf: $0) }
            data.append(contentsOf: Array(type.utf8))
            data.append(contentsOf: body)
        }
        box("ftyp", Array("M4A ".utf8) + [0, 0, 2, 0] + Array("M4A mp42isom".utf8))
        box("free", [UInt8](repeating: 0, count: 8))
        // An AAC raw data block's worth of bytes in `mdat`.
        box("mdat", (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        return data
    }

    /// Deterministic noise (a fixed-seed generator), so a failure reproduces.
    static func randomBytes(_ count: Int, seed: UInt64 = 0x5EED) -> Data {
        var state = seed
        return Data(
            (0..<count).map { _ in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return UInt8(truncatingIfNeeded: state >> 33)
            })
    }

    @Test func aacInMP4NamedMP3IsRecognisedAndNamed() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("01.mp3")
        try Self.mp4Bytes().write(to: url)
        #expect(MediaSniffer.sniff(url) == .mp4)
        let refusal = PlaybackError.unsupported(path: url.path, kind: .mp4, detail: "not MPEG audio")
        #expect(throws: refusal) { try MP3Decoder(contentsOf: url) }
        #expect(refusal.message == "\(url.path): looks like MP4/AAC: not MPEG audio")
    }

    @Test func emptyFileIsReportedAsEmpty() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("empty.mp3")
        try Data().write(to: url)
        #expect(MediaSniffer.sniff(url) == .empty)
        #expect(throws: PlaybackError.emptyFile(path: url.path)) { try AudioProbe.inspect(url) }
    }

    @Test func randomBytesAreNotPlayedAsNoise() throws {
        let dir = try TemporaryDirectory()
        for seed in UInt64(1)...20 {
            let url = dir.file("noise-\(seed).mp3")
            try Self.randomBytes(32 * 1024, seed: seed).write(to: url)
            #expect(MediaSniffer.sniff(url) == .unknown, "seed \(seed)")
            #expect(throws: PlaybackError.unsupported(path: url.path, kind: .unknown)) {
                try AudioDecoders.open(url)
            }
        }
    }

    @Test func missingFileIsReportedAsMissing() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("nope.mp3")
        #expect(MediaSniffer.sniff(url) == .unreadable)
        #expect(throws: PlaybackError.fileNotFound(path: url.path)) { try AudioProbe.inspect(url) }
        #expect(PlaybackError.fileNotFound(path: url.path).exitCode == 66)
    }

    @Test func aFolderIsNotAFile() throws {
        let dir = try TemporaryDirectory()
        do {
            _ = try MP3Decoder(contentsOf: dir.url)
            Issue.record("decoded a folder")
        } catch {
            #expect(error.message == "\(dir.path): is a folder, not a file")
            #expect(error.exitCode == 66)
        }
    }

    @Test func otherContainersAreNamed() throws {
        let dir = try TemporaryDirectory()
        let wav = try FixtureAudio.speech("A WAV file.").wav
        #expect(MediaSniffer.sniff(wav) == .wav)
        let ogg = dir.file("a.ogg")
        try (Data("OggS".utf8) + Self.randomBytes(100)).write(to: ogg)
        #expect(MediaSniffer.sniff(ogg) == .ogg)
        let adts = dir.file("a.aac")
        // Two ADTS frames of 16 bytes each (sync FFF1, frame length 16).
        let frame: [UInt8] = [0xFF, 0xF1, 0x50, 0x80, 0x02, 0x1F, 0xFC] + [UInt8](repeating: 0x21, count: 9)
        try Data(frame + frame).write(to: adts)
        #expect(MediaSniffer.sniff(adts) == .aac)
    }

    @Test func mp3BehindAnID3TagIsStillMP3() throws {
        let fixture = try FixtureAudio.speech(
            "Tagged.", lameArguments: ["-b", "64", "--add-id3v2", "--tt", "Piazza Maggiore"])
        let head = try Data(contentsOf: fixture.mp3).prefix(3)
        #expect(head == Data("ID3".utf8))
        #expect(MediaSniffer.sniff(fixture.mp3) == .mp3)
        #expect(try AudioProbe.inspect(fixture.mp3).frames == fixture.frames)
    }

    /// An ID3v2 tag of `size` bytes of padding.
    static func id3v2(_ size: Int) -> Data {
        Data("ID3".utf8)
            + Data([
                3, 0, 0, UInt8(size >> 21 & 0x7F), UInt8(size >> 14 & 0x7F), UInt8(size >> 7 & 0x7F),
                UInt8(size & 0x7F),
            ])
            + Data(count: size)
    }

    /// What mpg123 and ffmpeg play, found by an adversarial pass refused as "not a known audio
    /// format": a second ID3v2 tag (100 kB of cover art) after a first, and 70 kB of other bytes
    /// before the first frame (a tool's own header, a download's leftover).
    @Test(arguments: ["two tags", "junk"])
    func anMP3BehindTwoTagsOrFarIntoOtherBytesIsStillMP3(prefix: String) throws {
        let fixture = try FixtureAudio.speech("Found further on.")
        let dir = try TemporaryDirectory()
        let url = dir.file("far.mp3")
        let head = prefix == "junk" ? Self.randomBytes(70 * 1024, seed: 7) : Self.id3v2(1000) + Self.id3v2(100_000)
        let data = head + (try Data(contentsOf: fixture.mp3))
        try data.write(to: url)
        #expect(MediaSniffer.sniff(url) == .mp3)
        #expect(MediaSniffer.sniff(data: data) == .mp3)
        let decoded = try decodedAny(url)
        #expect(decoded.count == fixture.frames * 2, "\(decoded.count / 2) frames of \(fixture.frames)")
    }

    @Test func aMegabyteOfEmptyTagsIsNotFollowedTagByTag() throws {
        // 100,000 ID3v2 headers with nothing in them: at most eight are skipped, in a file or in
        // memory (one call deeper for each overflowed the stack).
        let data = Data((0..<100_000).map { _ in Self.id3v2(0) }.joined())
        #expect(MediaSniffer.sniff(data: data) == .unknown)
        let dir = try TemporaryDirectory()
        let url = dir.file("tags.mp3")
        try data.write(to: url)
        #expect(MediaSniffer.sniff(url) == .unknown)
    }

    /// An MP4 whose first box is not `ftyp`, as old QuickTime files begin (a `wide` box, then
    /// `free` space; here in the place of the fixture's `ftyp`, so the offsets inside stay true):
    /// FFmpeg plays it; the sniffer refused it as "not a known audio format". Found by an
    /// adversarial pass.
    @Test func anMP4WhoseFirstBoxIsNotFtypIsStillMP4() throws {
        let m4a = try Data(
            contentsOf: try FormatFixtures.file(FormatFixtures.encodings.first { $0.fileExtension == "m4a" }!))
        let ftyp = Int(m4a[0]) << 24 | Int(m4a[1]) << 16 | Int(m4a[2]) << 8 | Int(m4a[3])
        #expect(ftyp >= 16)
        let free = ftyp - 8
        let data =
            Data([0, 0, 0, 8]) + Data("wide".utf8)
            + Data([UInt8(free >> 24 & 0xFF), UInt8(free >> 16 & 0xFF), UInt8(free >> 8 & 0xFF), UInt8(free & 0xFF)])
            + Data("free".utf8) + Data(count: free - 8) + m4a.dropFirst(ftyp)
        #expect(data.count == m4a.count)
        let dir = try TemporaryDirectory()
        let url = dir.file("old.mov")
        try data.write(to: url)
        #expect(MediaSniffer.sniff(url) == .mp4)
        let decoder = try AudioDecoders.open(url)
        let pcm = try decodedAny(url)
        let reference = try decodedAny(
            try FormatFixtures.file(FormatFixtures.encodings.first { $0.fileExtension == "m4a" }!))
        let same = pcm == reference  // not diffed: megabytes
        #expect(same, "\(pcm.count) bytes against \(reference.count)")
        #expect(decoder.damage == nil)
    }

    /// An ADTS stream cut mid-frame (a download resumed at the wrong byte, a stream recorded from
    /// its middle): FFmpeg finds the next frame; the sniffer looked only at the first byte.
    @Test func anADTSStreamStartingMidFrameIsStillAAC() throws {
        let source = try FixtureAudio.speech("The old bridge over the river, and its shops of gold.")
        let dir = try TemporaryDirectory()
        let adts = dir.file("whole.aac")
        try FormatFixtures.ffmpeg(["-i", source.wav.path, "-c:a", "aac", "-f", "adts", adts.path])
        let url = dir.file("cut.aac")
        try (try Data(contentsOf: adts)).dropFirst(100).write(to: url)
        #expect(MediaSniffer.sniff(url) == .aac)
        // All but the frame cut (1024 samples) and the encoder's priming.
        let decoded = try decodedAny(url)
        #expect(abs(decoded.count / 2 - source.frames) <= 2048 + 1024, "\(decoded.count / 2) of \(source.frames)")
    }

    @Test func randomBytesAreNotAACOrMP3AnywhereInTheirFirstMegabyte() throws {
        let dir = try TemporaryDirectory()
        for seed in UInt64(1)...3 {
            let url = dir.file("noise-\(seed).bin")
            try Self.randomBytes(1_200_000, seed: seed).write(to: url)
            #expect(MediaSniffer.sniff(url) == .unknown, "seed \(seed)")
        }
    }

    @Test func truncatedMP3PlaysWhatItHasAndSaysSo() throws {
        let fixture = try FixtureAudio.speech("This sentence is cut off in the middle, as by a failed download.")
        let dir = try TemporaryDirectory()
        let url = dir.file("cut.mp3")
        let whole = try Data(contentsOf: fixture.mp3)
        try whole.prefix(whole.count * 6 / 10).write(to: url)
        // The probe does not believe the Info tag the file size contradicts: it scans.
        let info = try AudioProbe.inspect(url)
        let decoder = try MP3Decoder(contentsOf: url)
        let pcm = try DecoderTests.decodeAll(decoder)
        #expect(pcm.count / 2 == info.frames)
        #expect(info.frames > fixture.frames / 2 && info.frames < fixture.frames * 7 / 10)
        let damage = try #require(decoder.damage)
        #expect(damage.hasPrefix("the file is truncated ("))
        // What was played is what the whole file starts with.
        let full = try decodedPCM(fixture.mp3)
        let prefix = pcm.count - 4608 * 2  // the last frame before the cut may be decoded without its bit reservoir
        #expect(pcm.prefix(prefix) == full.prefix(prefix))
    }

    /// 8 kB of zeros in the middle of a narration (a damaged copy): libmpg123 gave up after 1 KiB
    /// of looking for the next frame and the narration stopped half-way ("decoding stopped
    /// early"); it plays on past them, as FFmpeg does, and says how much it could not decode.
    @Test func anMP3WithZerosInTheMiddlePlaysOnPastThemAndSaysWhatWasSkipped() throws {
        let fixture = try FixtureAudio.speech(
            "This narration has a damaged stretch in its middle, and it must play on after it to its end.")
        let dir = try TemporaryDirectory()
        let url = dir.file("holed.mp3")
        var bytes = try Data(contentsOf: fixture.mp3)
        let middle = bytes.count / 2
        bytes.replaceSubrange(middle..<(middle + 8192), with: Data(count: 8192))
        try bytes.write(to: url)
        let decoder = try MP3Decoder(contentsOf: url)
        let pcm = try DecoderTests.decodeAll(decoder)
        let frames = pcm.count / 2
        // 8 kB at 64 kbit/s is about a second; the rest plays.
        let lost = Double(fixture.frames - frames) / Double(decoder.format.sampleRate)
        #expect(lost > 0.5 && lost < 1.6, "\(lost) s lost of \(fixture.frames) frames")
        let damage = try #require(decoder.damage)
        #expect(damage.hasPrefix("damaged frames skipped: "), "\(damage)")
        // A whole file says nothing.
        let whole = try MP3Decoder(contentsOf: fixture.mp3)
        _ = try DecoderTests.decodeAll(whole)
        #expect(whole.damage == nil)
    }

    /// A damaged stretch in the middle of a narration FFmpeg decodes plays on past it, as ffmpeg
    /// does, and says how much could not be decoded. A FLAC or MS-ADPCM WAV stopped at the damage
    /// ("decoding stopped early"), half the narration gone; an Ogg or WebM lost seconds there and
    /// said nothing (lint passed it).
    @Test(arguments: ["flac", "adpcm.wav", "opus", "ogg", "webm"])
    func aDamagedStretchMidNarrationPlaysOnAndSaysWhatWasLost(_ kind: String) throws {
        let fixture = try FixtureAudio.speech(
            "This narration has a damaged stretch in its middle. It must play on after it, to its end, "
                + "and the curator must learn how much of it was lost, in seconds.")
        let dir = try TemporaryDirectory()
        let whole = dir.file("whole.\(kind)")
        let codec =
            switch kind {
            case "flac": ["-c:a", "flac"]
            case "adpcm.wav": ["-c:a", "adpcm_ms"]
            case "opus": ["-c:a", "libopus", "-b:a", "32k"]
            case "ogg": ["-c:a", "libvorbis", "-q:a", "2"]
            default: ["-c:a", "libopus", "-b:a", "32k"]
            }
        try FormatFixtures.ffmpeg(["-i", fixture.wav.path] + codec + [whole.path])
        var bytes = try Data(contentsOf: whole)
        // 2,000 bytes of noise half-way (a fixed sequence: the same damage every run).
        var state: UInt32 = 12345
        let middle = bytes.count / 2
        for i in middle..<(middle + 2000) {
            state = state &* 1_664_525 &+ 1_013_904_223
            bytes[i] = UInt8(truncatingIfNeeded: state >> 24)
        }
        let url = dir.file("holed.\(kind)")
        try bytes.write(to: url)
        let decoder = try AudioDecoders.open(url)
        let rate = Double(decoder.format.sampleRate)
        var frames = 0
        while let chunk = try decoder.nextChunk() { frames += chunk.count / decoder.format.bytesPerFrame }
        let ffmpegFrames = try FormatFixtures.reference(url, channels: 1).count / 2
        let wholeFrames = try FormatFixtures.reference(whole, channels: 1).count / 2
        #expect(
            Double(frames) >= Double(ffmpegFrames) - 0.1 * rate, "\(kind): \(frames) frames, ffmpeg \(ffmpegFrames)")
        let lost = Double(wholeFrames - frames) / rate
        #expect(lost < Double(wholeFrames) / rate / 4, "\(kind): \(lost) s lost")
        let damage = try #require(decoder.damage, "\(kind): nothing said, \(lost) s lost")
        if lost >= 0.2 {
            let said = damage.split(separator: " ").compactMap { Double($0) }.first ?? -1
            #expect(damage.contains("could not be decoded"), "\(kind): \(damage)")
            #expect(abs(said - lost) <= 0.1, "\(kind): says \(said) s, lost \(lost) s: \(damage)")
        }
        // The whole file says nothing.
        let healthy = try AudioDecoders.open(whole)
        while try healthy.nextChunk() != nil {}
        #expect(healthy.damage == nil, "\(kind): \(healthy.damage ?? "")")
    }

    /// Timestamps that jump or drift with nothing missing (a capture clock's: a browser's or a
    /// phone's recording) are not damage: the whole narration plays and nothing is said. Counted
    /// as lost, a 2 s jump in the stamps was "2.00 s could not be decoded" and a lint error (a
    /// recording 0.4 % slow, 0.2 s in 50 s; here 3 %).
    @Test(arguments: ["jump.mka", "jump.ogg", "jump.m4a", "drift.webm"])
    func timestampsThatJumpOrDriftAreNotDamage(_ name: String) throws {
        let source = try FixtureAudio.speech(
            "This narration was recorded by a clock that jumps. Nothing of it is missing, and all of it plays.")
        let dir = try TemporaryDirectory()
        let url = dir.file(name)
        let stamps = name.hasPrefix("jump") ? "asetpts='if(gte(T,2),PTS+2/TB,PTS)'" : "asetpts=PTS*1.03"
        let codec =
            name.hasSuffix(".m4a")
            ? ["-c:a", "aac"] : name.hasSuffix(".ogg") ? ["-c:a", "libvorbis"] : ["-c:a", "libopus"]
        try FormatFixtures.ffmpeg(["-i", source.wav.path, "-af", stamps] + codec + [url.path])
        let decoder = try AudioDecoders.open(url)
        var frames = 0
        while let chunk = try decoder.nextChunk() { frames += chunk.count / decoder.format.bytesPerFrame }
        let seconds = Double(frames) / Double(decoder.format.sampleRate)
        let expected = Double(source.frames) / Double(source.sampleRate)
        #expect(abs(seconds - expected) < 0.1, "\(name): \(seconds) s of \(expected)")
        #expect(decoder.damage == nil, "\(name): \(decoder.damage ?? "")")
    }

    /// Frames of another MP3 (48 kHz stereo) spliced into the middle of a narration (22.05 kHz
    /// mono): the narration stopped there ("the stream changes to 48000 Hz, stereo part-way"), as
    /// it did when garbage happened to look like such a frame. The foreign frames are dropped and
    /// the narration plays on to its end.
    @Test func framesOfAnotherFormatMidNarrationAreSkippedAndTheNarrationPlaysOn() throws {
        let fixture = try FixtureAudio.speech(
            "This narration has frames of another recording in its middle, and it must play on to its end.")
        let foreign = try FormatFixtures.file(FormatFixtures.encodings.first { $0.fileExtension == "m4a" }!)
        let dir = try TemporaryDirectory()
        let other = dir.file("other.mp3")
        try FormatFixtures.ffmpeg([
            "-i", foreign.path, "-ar", "48000", "-ac", "2", "-c:a", "libmp3lame", "-b:a", "128k", other.path,
        ])
        var bytes = try Data(contentsOf: fixture.mp3)
        let inserted = try Data(contentsOf: other)
        let middle = bytes.count / 2
        bytes.insert(contentsOf: inserted.dropFirst(inserted.count / 3).prefix(6000), at: middle)
        let url = dir.file("spliced.mp3")
        try bytes.write(to: url)
        let decoder = try MP3Decoder(contentsOf: url)
        let pcm = try DecoderTests.decodeAll(decoder)
        #expect(decoder.format.sampleRate == 22050 && decoder.format.channels == 1)
        // Nearly all of the narration plays (a frame or two either side of the splice may go).
        #expect(Double(pcm.count / 2) > Double(fixture.frames) * 0.9, "\(pcm.count / 2) of \(fixture.frames)")
        let damage = try #require(decoder.damage)
        #expect(!damage.contains("stopped there"), "\(damage)")
    }

    /// Two MP3 files carelessly concatenated: a 22.05 kHz mono intro, a 44.1 kHz stereo body (as
    /// `cat` makes them). Found by an adversarial pass: the narration stopped at the change ("the
    /// stream changes to 44100 Hz, stereo part-way and does not come back"); mpg123 plays on. The
    /// body is converted to the intro's format (a glitch of a few samples at most at the join).
    @Test func twoMP3FilesConcatenatedPlayWhole() throws {
        let intro = try FixtureAudio.speech("Welcome to the old town.")
        let body = try FixtureAudio.speech(
            "The market stood here for six hundred years, until the river moved.",
            lameArguments: ["--resample", "44.1", "-m", "j", "-b", "128"])
        let dir = try TemporaryDirectory()
        let url = dir.file("joined.mp3")
        try (try Data(contentsOf: intro.mp3) + Data(contentsOf: body.mp3)).write(to: url)
        let decoder = try MP3Decoder(contentsOf: url)
        #expect(decoder.format == PCMFormat(sampleRate: 22050, channels: 1))
        let pcm = try DecoderTests.decodeAll(decoder)
        // The intro's frames and the body's at 22.05 kHz, and the body's own start and end as its
        // encoder left them (gapless trimming reads the first file's tag only): its Info frame
        // decodes as a frame of silence, then its encoder's delay and padding, 44.1 kHz frames
        // all, halved here: about 1,600 frames, 70 ms of silence at the join.
        let due = intro.frames + body.frames
        let extra = pcm.count / 2 - due
        #expect(extra >= 0 && extra <= (1152 + 1105 + 1152) / 2 + 64, "\(pcm.count / 2) frames of \(due)")
        #expect(decoder.damage == nil, "\(decoder.damage ?? "")")
        let samples = pcm.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(samples.suffix(samples.count / 3).map { abs(Int($0)) }.max() ?? 0 > 3000, "the body sounds")
        // Its length, for the preview and lint, is the whole (the intro's Info tag counts the
        // intro alone).
        #expect(try AudioProbe.inspect(url).frames == pcm.count / 2)
    }

    /// A stereo part after a mono one (MP3 files concatenated, a chained Ogg), each a tone at the
    /// same level on every channel: the stereo part is as loud as it would play alone. Found by an
    /// adversarial pass: its downmix halved the two channels, so it played 3 dB under the mono
    /// part (and under itself alone). Summed 3 dB down each, it plays at its own level once upmixed.
    @Test(arguments: ["mp3", "ogg"])
    func aStereoPartAfterAMonoOneKeepsItsLoudness(container: String) throws {
        let dir = try TemporaryDirectory()
        let codec = container == "mp3" ? ["-c:a", "libmp3lame", "-b:a", "128k"] : ["-c:a", "libvorbis"]
        let mono = dir.file("mono." + container), stereo = dir.file("stereo." + container)
        let tone = "sine=frequency=440:sample_rate=22050:duration=3"
        try FormatFixtures.ffmpeg(["-f", "lavfi", "-i", tone, "-af", "volume=-12dB", "-ac", "1"] + codec + [mono.path])
        try FormatFixtures.ffmpeg(
            ["-f", "lavfi", "-i", tone, "-af", "volume=-12dB", "-ac", "2", "-ar", "44100"] + codec + [stereo.path])
        let joined = dir.file("joined." + container)
        try (try Data(contentsOf: mono) + Data(contentsOf: stereo)).write(to: joined)
        let decoder = try AudioDecoders.open(joined)
        #expect(decoder.format == PCMFormat(sampleRate: 22050, channels: 1))
        var pcm = Data()
        while let chunk = try decoder.nextChunk() { pcm.append(contentsOf: UnsafeRawBufferPointer(chunk)) }
        let samples = pcm.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        func rms(_ part: ArraySlice<Int16>) -> Double {
            (part.map { Double($0) * Double($0) }.reduce(0, +) / Double(max(1, part.count))).squareRoot()
        }
        // The stereo part's middle second, against the stereo file's own channels decoded alone:
        // both channels summed 3 dB down each (so that, played 3 dB down on each, it is as loud).
        let spliced = rms(samples[(samples.count - 44_100)..<(samples.count - 22_050)])
        let alone = try AudioDecoders.open(stereo)
        var own = Data()
        while let chunk = try alone.nextChunk() { own.append(contentsOf: UnsafeRawBufferPointer(chunk)) }
        let left = own.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.enumerated().filter {
            $0.offset % 2 == 0
        }
        .map(\.element)
        let channel = rms(left[44_100..<88_200])
        let ratio = spliced / (channel * 2.0.squareRoot())
        #expect(abs(ratio - 1) < 0.05, "the stereo part at \(ratio) of its own level")
    }

    /// Damaged copies of a real MP3 (bytes overwritten, cut short, spliced with noise): each one
    /// either decodes, possibly with a damage report, or is refused with a typed error. None
    /// crashes or hangs, and none decodes to more audio than the whole file holds (plus one
    /// resynchronised frame).
    @Test func damagedFilesNeverCrashOrRunAway() throws {
        let fixture = try FixtureAudio.speech("Damaged in transit, but still a walk.")
        let original = [UInt8](try Data(contentsOf: fixture.mp3))
        var state: UInt64 = 7
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        var decoded = 0, refused = 0
        for round in 0..<150 {
            var bytes = original
            switch round % 3 {
            case 0: for _ in 0..<(1 + next(40)) { bytes[next(bytes.count)] = UInt8(next(256)) }
            case 1: bytes = Array(bytes.prefix(next(bytes.count)))
            default:
                let at = next(bytes.count)
                bytes.replaceSubrange(
                    at..<min(bytes.count, at + next(2000)), with: (0..<next(2000)).map { _ in UInt8(next(256)) })
            }
            do {
                let decoder = try MP3Decoder(data: Data(bytes), name: "damaged-\(round).mp3")
                var frames = 0
                while let chunk = try decoder.nextChunk() { frames += chunk.count / decoder.format.bytesPerFrame }
                #expect(frames <= fixture.frames + 2 * 1152, "round \(round)")
                decoded += 1
            } catch {
                #expect(!error.message.isEmpty)
                refused += 1
            }
        }
        #expect(decoded + refused == 150)
        #expect(decoded > 0)
    }

    @Test func queueReportsEachBadFileAndPlaysTheNext() async throws {
        let dir = try TemporaryDirectory()
        let good = try FixtureAudio.speech("The good one.")
        let mp4 = dir.file("aac.mp3"); try Self.mp4Bytes().write(to: mp4)
        let empty = dir.file("empty.mp3"); try Data().write(to: empty)
        let noise = dir.file("noise.mp3"); try Self.randomBytes(16 * 1024).write(to: noise)
        let missing = dir.file("missing.mp3")
        let cut = dir.file("cut.mp3")
        let whole = try Data(contentsOf: good.mp3)
        try whole.prefix(whole.count / 2).write(to: cut)

        let sink = NullSink()
        let queue = AudioQueue(sink: sink)
        for (id, url) in [
            ("mp4", mp4), ("empty", empty), ("noise", noise), ("missing", missing), ("cut", cut), ("good", good.mp3),
        ] {
            await queue.enqueue(url, id: id)
        }
        let run = try await collect(queue) { $0 == .finished(id: "good") }
        await queue.shutdown()
        let cutMessage =
            run.milestones.compactMap { event -> String? in
                if case .warning("cut", let message) = event { return message } else { return nil }
            }.first ?? ""
        #expect(cutMessage.hasPrefix("\(cut.path): the file is truncated ("))
        #expect(
            run.milestones == [
                .failed(
                    id: "mp4",
                    message:
                        "\(mp4.path): looks like MP4/AAC: cannot be decoded (Invalid data found when processing input)"
                ),
                .failed(id: "empty", message: "\(empty.path): the file is empty"),
                .failed(id: "noise", message: "\(noise.path): not audio walkscape plays (not a known audio format)"),
                .failed(id: "missing", message: "\(missing.path): no such file"),
                .started(id: "cut"), .warning(id: "cut", message: cutMessage), .finished(id: "cut"),
                .started(id: "good"), .finished(id: "good"),
            ])
        #expect(sink.totalFrames > good.frames)
    }
}

import Foundation
import Synchronization
import TestSupport
import Testing
import TourModel

@testable import Curation

/// Lint's loudness checks (docs/loudness.md): a narration far from its language's median, a silent
/// one, a clipped one; a tour recorded at one level has none of them.
@Suite("lint: loudness")
struct LintLoudnessTests {
    /// A tour of narrations (file names under media/en), 200 m apart, with generous radii so the
    /// only findings are about the audio.
    static func writeTour(_ audio: [URL], in dir: TemporaryDirectory) throws -> URL {
        let root = dir.url.appendingPathComponent("tour")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("media/en"), withIntermediateDirectories: true)
        var json =
            #"{"format": 1, "id": "t", "slug": "t", "languages": {"en": {"title": "T", "completionMessage": "Bye"}}, "points": ["#
        for (i, file) in audio.enumerated() {
            let name = "media/en/\(i + 1).\(file.pathExtension)"
            try FileManager.default.copyItem(at: file, to: root.appendingPathComponent(name))
            if i > 0 { json += "," }
            json +=
                #"{"id": "p\#(i + 1)", "order": \#(i + 1), "location": {"lat": \#(45 + Double(i) * 0.0018), "lng": 11.0}, "#
                + #""triggerRadiusMeters": 40, "content": {"en": {"title": "P\#(i + 1)", "audio": "\#(name)"}}}"#
        }
        try Data((json + "]}").utf8).write(to: root.appendingPathComponent("tour.json"))
        return root
    }

    static let text = "Here the market stood for six hundred years, until the river moved."

    @Test func aQuietASilentAndAClippedNarrationAreNamed() throws {
        let dir = try TemporaryDirectory()
        let normal = try FormatFixtures.speech(Self.text, gainDB: 0)
        let quiet = try FormatFixtures.speech(Self.text, gainDB: -14)
        let silent = try FixtureAudio.silence(seconds: 2).wav
        let clipped = try FormatFixtures.speech(Self.text, gainDB: 18)
        let root = try Self.writeTour([normal, normal, quiet, silent, clipped, normal], in: dir)
        let findings = TourLint().lint(folder: root).findings.filter {
            ["loudness-outlier", "audio-silent", "audio-clipped"].contains($0.check)
        }
        let byCheck = Dictionary(grouping: findings, by: \.check)
        #expect(byCheck["audio-silent"]?.map(\.location) == ["media/en/4.wav"])
        #expect(byCheck["audio-silent"]?.first?.severity == .error)
        #expect(byCheck["audio-clipped"]?.map(\.location) == ["media/en/5.wav"])
        #expect(byCheck["audio-clipped"]?.first?.severity == .warning)
        // The median of the five that sound is the normal level; the quiet one is 14 LU under it,
        // the clipped one (18 dB up, flattened) well over 6 LU above it.
        #expect(byCheck["loudness-outlier"]?.map(\.location).sorted() == ["media/en/3.wav", "media/en/5.wav"])
        let quietLine = try #require(byCheck["loudness-outlier"]?.first { $0.location == "media/en/3.wav" })
        #expect(quietLine.message.contains("quieter than the language's median"), "\(quietLine.message)")
        #expect(quietLine.message.hasPrefix("point 3"), "\(quietLine.message)")
    }

    /// Levelling raises a narration at most 30 dB, and never past -1 dBTP: one recorded 40 dB
    /// down, and one whose single click at full scale holds it where it is, play far under the
    /// walk's level, and lint said nothing of it. Speech as espeak-ng makes it (-20 LUFS, peaks at
    /// -1.2 dBTP, mono: its upmix leaves 3 dB) reaches the target within a few tenths.
    @Test func aNarrationLevellingCannotBringToTheWalksLevelIsNamed() throws {
        let dir = try TemporaryDirectory()
        let normal = try FixtureAudio.speech(Self.text).wav
        let faint = try FormatFixtures.speech(Self.text, gainDB: -40)
        // The speech 20 dB down, with one sample at full scale.
        let (rate, channels, pcm) = try FixtureAudio.readWAV(try FormatFixtures.speech(Self.text, gainDB: -20))
        var samples = [Int16](repeating: 0, count: pcm.count / 2)
        _ = samples.withUnsafeMutableBytes { pcm.copyBytes(to: $0) }
        samples[samples.count / 2] = 32767
        let clicked = dir.file("clicked.wav")
        try FixtureAudio.writeWAV(samples, sampleRate: rate, channels: channels, to: clicked)
        let root = try Self.writeTour([normal, faint, clicked], in: dir)
        let findings = TourLint().lint(folder: root).findings.filter { $0.check == "loudness-unreachable" }
        #expect(findings.map(\.location) == ["media/en/2.wav", "media/en/3.wav"], "\(findings.map(\.message))")
        #expect(findings.allSatisfy { $0.severity == .warning })
        let faintLine = findings.first?.message ?? ""
        #expect(faintLine.contains("levelling raises a narration at most 30 dB"), "\(faintLine)")
        #expect(faintLine.contains("LU under the walk's -16.0 LUFS"), "\(faintLine)")
        let clickedLine = findings.last?.message ?? ""
        #expect(clickedLine.contains("its peaks hold it at -1 dBTP"), "\(clickedLine)")
        // Played as recorded, nothing is levelled and nothing is named.
        var off = TourLint()
        off.loudnessTarget = .off
        #expect(!off.lint(folder: root).findings.contains { $0.check == "loudness-unreachable" })
    }

    /// The finding names the file once: its location, then the reason (the reason repeated the
    /// file's whole path after it).
    @Test func aNarrationThatCannotBeReadIsNamedOnce() throws {
        let dir = try TemporaryDirectory()
        let normal = try FormatFixtures.speech(Self.text, gainDB: 0)
        let broken = dir.url.appendingPathComponent("broken.m4a")
        try (Data([0, 0, 0, 24]) + Data("ftypM4A ".utf8) + Data(count: 112)).write(to: broken)
        let root = try Self.writeTour([normal, broken], in: dir)
        let finding = try #require(TourLint().lint(folder: root).findings.first { $0.check == "audio-unreadable" })
        #expect(finding.location == "media/en/2.m4a")
        #expect(finding.message.hasPrefix("point 2"), "\(finding.message)")
        #expect(!finding.message.contains("/media/en/2.m4a"), "\(finding.message)")
    }

    /// A narration cut short is an error in every format; one too short to measure (under 400 ms)
    /// is a warning, not "silent". lint passed truncated files of every format (play warned of the
    /// MP3 and FLAC ones), and called a 300 ms chime silent.
    @Test func aTruncatedNarrationInAnyFormatIsNamedAndAShortOneIsNotCalledSilent() throws {
        let dir = try TemporaryDirectory()
        func cut(_ source: URL, keeping fraction: Double) throws -> URL {
            let data = try Data(contentsOf: source)
            let url = dir.url.appendingPathComponent("cut-\(source.lastPathComponent)")
            try data.prefix(Int(Double(data.count) * fraction)).write(to: url)
            return url
        }
        let normal = try FormatFixtures.speech(Self.text, gainDB: 0)
        var audio = [normal, normal, normal]
        for fileExtension in ["wav", "ogg", "opus", "flac"] {
            audio.append(
                try cut(try FormatFixtures.speech(Self.text, gainDB: 0, fileExtension: fileExtension), keeping: 0.6))
        }
        audio.append(try cut(try FixtureAudio.speech(Self.text).mp3, keeping: 0.6))
        audio.append(try FixtureAudio.tone(seconds: 0.3).wav)
        let root = try Self.writeTour(audio, in: dir)
        let findings = TourLint().lint(folder: root).findings
        let damaged = findings.filter { $0.check == "audio-damaged" }
        #expect(
            damaged.map(\.location) == [
                "media/en/4.wav", "media/en/5.ogg", "media/en/6.opus", "media/en/7.flac", "media/en/8.mp3",
            ],
            "\(findings)")
        #expect(damaged.allSatisfy { $0.severity == .error })
        #expect(
            damaged.first?.message.hasPrefix(
                "point 4 (P4) in 'en': the file ends early (72836 of its 182010 bytes of audio missing)") == true,
            "\(damaged)")
        #expect(!findings.contains { $0.check == "audio-silent" }, "\(findings)")
        let short = findings.filter { $0.check == "audio-too-short" }
        #expect(short.map(\.location) == ["media/en/9.wav"], "\(findings)")
        #expect(short.first?.severity == .warning)
        #expect(short.first?.message.contains("lasts 300 ms, too short to measure its loudness") == true, "\(short)")
    }

    @Test func narrationsAtOneLevelGiveNoLoudnessFinding() throws {
        let dir = try TemporaryDirectory()
        let a = try FormatFixtures.speech(Self.text, gainDB: 0)
        let b = try FormatFixtures.speech(Self.text, gainDB: -3, fileExtension: "flac")
        let c = try FixtureAudio.speech("The gate closes at dusk.").mp3
        let root = try Self.writeTour([a, b, c], in: dir)
        var lint = TourLint()
        let asked = Mutex(0)
        let direct = lint.measureLoudness
        lint.measureLoudness = { urls in
            asked.withLock { $0 += urls.count }
            return direct(urls)
        }
        let findings = lint.lint(folder: root).findings
        #expect(!findings.contains { ["loudness-outlier", "audio-silent", "audio-clipped"].contains($0.check) })
        #expect(asked.withLock { $0 } == 3)
    }

    /// Silence at either end of a narration: a walker who reaches the point hears nothing for as
    /// long as it leads in; a point reached meanwhile waits behind a long tail. lint said nothing.
    /// Silence is judged against the narration's own level: a quiet narration's speech is sound,
    /// and ambience before the speech (a room, a street) is sound too.
    @Test func silenceAtEitherEndOfANarrationIsNamed() throws {
        let dir = try TemporaryDirectory()
        let (rate, channels, pcm) = try FixtureAudio.readWAV(try FormatFixtures.speech(Self.text, gainDB: 0))
        var speech = [Int16](repeating: 0, count: pcm.count / 2)
        _ = speech.withUnsafeMutableBytes { pcm.copyBytes(to: $0) }
        var noise = SystemRandomNumberGenerator()
        /// `seconds` of noise at about `dBFS` (RMS), or digital silence.
        func bed(_ seconds: Double, dBFS: Double?) -> [Int16] {
            let count = Int(seconds * Double(rate)) * channels
            guard let dBFS else { return [Int16](repeating: 0, count: count) }
            let amplitude = 32767 * pow(10, dBFS / 20) * 3.0.squareRoot()  // uniform noise: RMS = amplitude / √3
            return (0..<count).map { _ in Int16(Double.random(in: -amplitude...amplitude, using: &noise)) }
        }
        func write(_ name: String, _ samples: [Int16]) throws -> URL {
            let url = dir.file(name)
            try FixtureAudio.writeWAV(samples, sampleRate: rate, channels: channels, to: url)
            return url
        }
        let normal = try write("normal.wav", speech)
        let leadIn = try write("lead.wav", bed(4, dBFS: nil) + speech)
        let tail = try write("tail.wav", speech + bed(7, dBFS: -75))
        let shortPause = try write("short.wav", bed(1, dBFS: nil) + speech + bed(2, dBFS: nil))
        let ambience = try write("ambience.wav", bed(4, dBFS: -40) + speech)
        let quietSpeech = speech.map { Int16(Double($0) * pow(10, -40.0 / 20)) }
        let quiet = try write("quiet.wav", bed(3, dBFS: nil) + quietSpeech)
        let root = try Self.writeTour([normal, leadIn, tail, shortPause, ambience, quiet], in: dir)
        let findings = TourLint().lint(folder: root).findings
        let leading = findings.filter { $0.check == "audio-leading-silence" }
        let trailing = findings.filter { $0.check == "audio-trailing-silence" }
        #expect(leading.map(\.location) == ["media/en/2.wav", "media/en/6.wav"], "\(findings)")
        #expect(trailing.map(\.location) == ["media/en/3.wav"], "\(findings)")
        #expect((leading + trailing).allSatisfy { $0.severity == .warning })
        let lead = leading.first?.message ?? ""
        #expect(lead.hasPrefix("point 2 (P2) in 'en': the narration begins with 4.0 s of silence"), "\(lead)")
        #expect(leading.last?.message.contains("begins with 3.0 s of silence") == true, "\(leading)")
        let end = trailing.first?.message ?? ""
        #expect(end.hasPrefix("point 3 (P3) in 'en': the narration ends with 7."), "\(end)")
        #expect(!findings.contains { $0.check == "audio-one-channel" }, "\(findings)")
    }

    /// A stereo narration recorded on one channel, the other silent, is named: it plays on both
    /// (as mono), and the curator should know the file is one-sided.
    @Test func aNarrationOnOneChannelOfTwoIsNamed() throws {
        let dir = try TemporaryDirectory()
        let (rate, _, pcm) = try FixtureAudio.readWAV(try FormatFixtures.speech(Self.text, gainDB: 0))
        var speech = [Int16](repeating: 0, count: pcm.count / 2)
        _ = speech.withUnsafeMutableBytes { pcm.copyBytes(to: $0) }
        func stereo(_ name: String, left: Double, right: Double) throws -> URL {
            var samples = [Int16](repeating: 0, count: speech.count * 2)
            for (i, sample) in speech.enumerated() {
                samples[2 * i] = Int16(Double(sample) * left)
                samples[2 * i + 1] = Int16(Double(sample) * right)
            }
            let url = dir.file(name)
            try FixtureAudio.writeWAV(samples, sampleRate: rate, channels: 2, to: url)
            return url
        }
        // Both; the right alone; the left with the right 50 dB under it; the right 20 dB under.
        let audio = [
            try stereo("both.wav", left: 1, right: 1), try stereo("right.wav", left: 0, right: 1),
            try stereo("left.wav", left: 1, right: 0.003), try stereo("wide.wav", left: 1, right: 0.1),
        ]
        let root = try Self.writeTour(audio, in: dir)
        let findings = TourLint().lint(folder: root).findings.filter { $0.check == "audio-one-channel" }
        #expect(findings.map(\.location) == ["media/en/2.wav", "media/en/3.wav"], "\(findings)")
        #expect(findings.allSatisfy { $0.severity == .warning })
        #expect(
            findings.first?.message
                == "point 2 (P2) in 'en': the narration is on its right channel alone, the left silent: it plays on both, as mono",
            "\(findings)")
    }
}

import Foundation
import TestSupport
import Testing

/// `walkscape play` as a user runs it: the built executable as a subprocess.
@Suite struct PlayCommandTests {
    /// Runs the executable from a thread of its own, so waiting for it does not hold one of the
    /// few cooperative threads that other (timing-sensitive) tests need.
    func walkscape(
        _ arguments: [String], home: TemporaryDirectory,
        environment: [String: String] = [:]
    ) async throws -> ProcessResult {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try runWalkscape(arguments, home: home, environment: environment) })
            }.start()
        }
    }

    @Test func playsToAWAVFileBackToBackWithSubtitleCues() async throws {
        let a = try FixtureAudio.speech("Under the porticoes.")
        let b = try FixtureAudio.tone(frames: 12_345)
        let home = try TemporaryDirectory()
        let srt = try home.write(
            "a.srt",
            "\u{FEFF}1\r\n00:00:00,200 --> 00:00:00.900  \r\nUnder the\r\n\r\n00:00:00,950 --> 00:00:01,400\r\nporticoes.\r\n"
        )
        let out = home.file("out.wav")
        let result = try await walkscape(
            ["play", a.mp3.path, b.mp3.path, "--subtitles", srt.path, "--output", out.path], home: home)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                ▶ \(a.mp3.path)
                [0:00.200] Under the
                [0:00.950] porticoes.
                ▶ \(b.mp3.path)

                """)
        let wav = try FixtureAudio.readWAV(out)
        // 22.05 kHz mono narrations, on an output opened in stereo at 44.1 kHz: twice the frames
        // (within the converter's edge, a frame or two each).
        #expect(wav.sampleRate == 44100 && wav.channels == 2)
        #expect(abs(wav.pcm.count / 4 - (a.frames + b.frames) * 2) <= 4, "\(wav.pcm.count / 4) frames")
    }

    @Test func playsToTheALSANullDevice() async throws {
        let a = try FixtureAudio.speech("To nowhere.")
        let home = try TemporaryDirectory()
        let result = try await walkscape(["play", a.mp3.path, "--audio-device", "null"], home: home)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        #expect(result.stdout == "▶ \(a.mp3.path)\n")
    }

    @Test func noAudioPlaysInRealTime() async throws {
        let a = try FixtureAudio.tone(seconds: 0.8)
        let home = try TemporaryDirectory()
        let clock = ContinuousClock()
        let start = clock.now
        let result = try await walkscape(["play", a.mp3.path, "--no-audio"], home: home)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(clock.now - start >= .milliseconds(750))
    }

    /// Cues reach a pipe when they are heard, not when the process exits.
    @Test func cuesArriveInTimeThroughAPipe() async throws {
        let tone = try FixtureAudio.tone(seconds: 1.0)
        let home = try TemporaryDirectory()
        let srt = try home.write(
            "t.srt", "1\n00:00:00,100 --> 00:00:00,500\nEarly\n\n2\n00:00:00,600 --> 00:00:00,800\nLate\n")
        let arrivals: [(line: String, at: Duration)] = try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(
                    with: Result {
                        let process = Process()
                        process.executableURL = TestPaths.walkscape
                        process.arguments = [
                            "play", tone.mp3.path, "--no-audio", "--subtitles", srt.path, "--home", home.path,
                        ]
                        let out = Pipe()
                        process.standardOutput = out
                        process.standardError = FileHandle.nullDevice
                        let clock = ContinuousClock()
                        let start = clock.now
                        try process.run()
                        var arrivals: [(String, Duration)] = []
                        var pending = ""
                        while true {
                            let data = out.fileHandleForReading.availableData
                            if data.isEmpty { break }
                            pending += String(decoding: data, as: UTF8.self)
                            while let newline = pending.firstIndex(of: "\n") {
                                arrivals.append((String(pending[..<newline]), clock.now - start))
                                pending = String(pending[pending.index(after: newline)...])
                            }
                        }
                        process.waitUntilExit()
                        arrivals.append(("exit \(process.terminationStatus)", clock.now - start))
                        return arrivals
                    })
            }.start()
        }
        #expect(arrivals.map(\.line) == ["▶ \(tone.mp3.path)", "[0:00.100] Early", "[0:00.600] Late", "exit 0"])
        guard arrivals.count == 4 else { return }
        let early = arrivals[1].at, late = arrivals[2].at, exit = arrivals[3].at
        #expect(late - early >= .milliseconds(400))
        #expect(exit - late >= .milliseconds(200))
    }

    @Test func missingSoundCardSaysWhatToDo() async throws {
        let a = try FixtureAudio.speech("Nobody hears this.")
        let home = try TemporaryDirectory()
        let result = try await walkscape(["play", a.mp3.path, "--audio-device", "nosuchcard"], home: home)
        #expect(result.status == 69)
        #expect(
            result.stderr
                == "walkscape: no sound card: could not open ALSA device 'nosuchcard' (No such file or directory); choose one with --audio-device NAME or use --no-audio\n"
        )
    }

    @Test func theDeviceComesFromTheEnvironmentUnlessAFlagNamesOne() async throws {
        let a = try FixtureAudio.speech("Which device?")
        let home = try TemporaryDirectory()
        let env = ["WALKSCAPE_AUDIO_DEVICE": "envcard"]
        let fromEnv = try await walkscape(["play", a.mp3.path], home: home, environment: env)
        #expect(fromEnv.status == 69)
        #expect(fromEnv.stderr.hasPrefix("walkscape: no sound card: could not open ALSA device 'envcard' ("))
        let fromFlag = try await walkscape(
            ["play", a.mp3.path, "--audio-device", "null"], home: home, environment: env)
        #expect(fromFlag.status == 0)
    }

    @Test func badFilesAreReportedAndTheRestPlays() async throws {
        let good = try FixtureAudio.speech("Still playing.")
        let home = try TemporaryDirectory()
        let fake = home.file("fake.mp3")
        var mp4 = Data([0, 0, 0, 24]) + Data("ftypM4A ".utf8) + Data(count: 12)
        mp4.append(Data(count: 100))
        try mp4.write(to: fake)
        let missing = home.file("missing.mp3")
        let out = home.file("out.wav")
        let result = try await walkscape(["play", fake.path, missing.path, good.mp3.path, "-o", out.path], home: home)
        #expect(result.status == 65)
        #expect(result.stdout == "▶ \(good.mp3.path)\n")
        #expect(
            result.stderr == """
                walkscape: \(fake.path): looks like MP4/AAC: cannot be decoded (Invalid data found when processing input)
                walkscape: \(missing.path): no such file
                walkscape: 2 of 3 files could not be played

                """)
        #expect(try FixtureAudio.readWAV(out).pcm.count == (try heardPCM(good.mp3)).count)
    }

    @Test func badFlagsAreRefusedBeforeAnyWork() async throws {
        let home = try TemporaryDirectory()
        let none = try await walkscape(["play"], home: home)
        #expect(none.status == 64)
        #expect(none.stderr.hasPrefix("Error: name at least one audio file to play\n"))
        let both = try await walkscape(["play", "x.mp3", "--no-audio", "--output", "o.wav"], home: home)
        #expect(both.status == 64)
        #expect(both.stderr.hasPrefix("Error: choose one of --audio-device, --output and --no-audio\n"))
        let tooMany = try await walkscape(
            ["play", "x.mp3", "--subtitles", "a.srt", "--subtitles", "b.srt"], home: home)
        #expect(tooMany.status == 64)
        #expect(tooMany.stderr.hasPrefix("Error: 2 --subtitles for 1 file: give at most one per file\n"))
        let loud = try await walkscape(["play", "x.mp3", "--volume", "2"], home: home)
        #expect(loud.status == 64)
        #expect(loud.stderr.hasPrefix("Error: --volume must be between 0 and 1, not 2\n"))
    }

    @Test func brokenSubtitlesNameTheFileAndLine() async throws {
        let a = try FixtureAudio.speech("Hello.")
        let home = try TemporaryDirectory()
        let srt = try home.write("bad.srt", "1\n00:00:01,000 -> 00:00:02,000\nHi\n")
        let result = try await walkscape(["play", a.mp3.path, "--subtitles", srt.path, "--no-audio"], home: home)
        #expect(result.status == 65)
        #expect(
            result.stderr
                == "walkscape: \(srt.path): line 2: expected a timing line like '00:00:01,000 --> 00:00:02,500' after cue 1, found '00:00:01,000 -> 00:00:02,000'\n"
        )
    }

    @Test func playLevelsAQuietFileToItsNeighboursAndLoudnessOffGivesTheFilesAsRecorded() async throws {
        let text = "The tower leans four degrees to the south."
        let normal = try FormatFixtures.speech(text, gainDB: 0)
        let quiet = try FormatFixtures.speech(text, gainDB: -12, fileExtension: "ogg")
        let home = try TemporaryDirectory()
        let levelled = home.file("levelled.wav")
        let result = try await walkscape(["play", normal.path, quiet.path, "--output", levelled.path], home: home)
        #expect(result.status == 0, "\(result.stderr)")
        let frames = try heardPCM(normal).count / 4
        let total = try FixtureAudio.readWAV(levelled).pcm.count / 4
        let first = try FormatFixtures.ebur128(levelled, frames: 0..<frames)
        let second = try FormatFixtures.ebur128(levelled, frames: frames..<total)
        let a = try #require(first.integrated)
        let b = try #require(second.integrated)
        #expect(abs(a - b) <= 1, "\(a) and \(b) LUFS")
        // Measured once: the cache holds both files by their hashes.
        let cache = try String(contentsOf: home.file("cache/loudness.json"), encoding: .utf8)
        #expect(cache.components(separatedBy: "\"integrated\"").count == 3)

        let asRecorded = home.file("off.wav")
        let off = try await walkscape(
            ["play", normal.path, normal.path, "--output", asRecorded.path, "--loudness", "off"], home: home)
        #expect(off.status == 0, "\(off.stderr)")
        let expected = try heardPCM(normal)
        let same = try FixtureAudio.readWAV(asRecorded).pcm == expected + expected  // not diffed: megabytes
        #expect(same)
    }

    @Test func aLoudnessThatIsNotALevelIsRefusedInOneLine() async throws {
        let a = try FixtureAudio.tone(seconds: 0.2)
        let home = try TemporaryDirectory()
        let flag = try await walkscape(["play", a.mp3.path, "--no-audio", "--loudness", "3"], home: home)
        #expect(flag.status == 64)
        #expect(flag.stderr.contains("--loudness '3' is not off or a level in LUFS from -40 to -5"), "\(flag.stderr)")
        _ = try home.write("config/config", "loudness = loud\n")
        let config = try await walkscape(["play", a.mp3.path, "--output", home.file("x.wav").path], home: home)
        #expect(config.status == 64)
        #expect(
            config.stderr
                == "walkscape: loudness 'loud' (from config file) is not off or a level in LUFS from -40 to -5\n",
            "\(config.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.file("x.wav").path))
    }
}

import Foundation
import TestSupport
import Testing

@testable import Playback

/// The narration queue: order, gaplessness, pause/resume, skip and stop with fades, volume.
/// Timing-sensitive tests use a `PacedSink`, a sink with a real-time clock, over a WAV file so the
/// result can be inspected sample by sample.
@Suite struct AudioQueueTests {
    @Test func itemsPlayBackToBackWithoutGapsInOrder() async throws {
        let a = try FixtureAudio.speech("Point one.")
        let b = try FixtureAudio.speech("Point two, a little longer.")
        let c = try FixtureAudio.tone(frames: 7_777)
        let dir = try TemporaryDirectory()
        let out = dir.file("all.wav")
        let queue = AudioQueue(sink: WAVFileSink(url: out))
        await queue.enqueue(a.mp3, id: "1")
        await queue.enqueue(b.mp3, id: "2")
        await queue.enqueue(c.mp3, id: "3")
        let run = try await collect(queue) { $0 == .finished(id: "3") }
        await queue.shutdown()
        #expect(
            run.milestones == [
                .started(id: "1"), .finished(id: "1"), .started(id: "2"), .finished(id: "2"),
                .started(id: "3"), .finished(id: "3"),
            ])
        // Each converted to the output's stereo 44.1 kHz, back to back.
        let written = try FixtureAudio.readWAV(out).pcm
        let expected = try heardPCM(a.mp3) + heardPCM(b.mp3) + heardPCM(c.mp3)
        let same = written == expected  // not diffed: megabytes
        #expect(same, "\(written.count) bytes against \(expected.count)")
    }

    @Test func positionEventsFollowTheHeardClock() async throws {
        let tone = try FixtureAudio.tone(seconds: 1.0)
        // Positions are reported after each device write (2048 frames, 93 ms here), at most every 50 ms.
        let queue = AudioQueue(sink: PacedSink(wrapping: NullSink()), positionInterval: .milliseconds(50))
        let clock = ContinuousClock()
        let begin = clock.now
        await queue.enqueue(tone.mp3, id: "t")
        let run = try await collect(queue) { $0 == .finished(id: "t") }
        let elapsed = clock.now - begin
        await queue.shutdown()
        #expect(elapsed >= .milliseconds(950))
        #expect(run.positions.count >= 8, "\(run.positions.count) positions")
        let seconds = run.positions.map(\.seconds)
        #expect(seconds == seconds.sorted())
        #expect(seconds.allSatisfy { $0 <= 1.0 })
        #expect(run.positions.allSatisfy { $0.id == "t" })
    }

    /// Waits by blocking this test's own thread rather than suspending: the playback thread keeps
    /// going regardless, and the next queue call happens right after, even when other tests keep
    /// the cooperative pool busy (a suspended task could wake seconds late on a loaded machine).
    static func hold(_ seconds: Double) { Thread.sleep(forTimeInterval: seconds) }

    @Test func pauseHoldsAndResumeGoesOnFromTheSameSample() async throws {
        let tone = try FixtureAudio.tone(seconds: 1.0)
        let dir = try TemporaryDirectory()
        let out = dir.file("paused.wav")
        let queue = AudioQueue(sink: PacedSink(wrapping: WAVFileSink(url: out)), positionInterval: .milliseconds(50))
        let clock = ContinuousClock()
        let begin = clock.now
        await queue.enqueue(tone.mp3, id: "t")
        Self.hold(0.4)
        await queue.pause()
        #expect(await queue.isPaused)
        Self.hold(0.6)
        await queue.resume()
        let run = try await collect(queue) { $0 == .finished(id: "t") }
        let elapsed = clock.now - begin
        await queue.shutdown()
        #expect(run.milestones == [.started(id: "t"), .finished(id: "t")])
        // 1 s of audio plus the 0.6 s pause, less what the device had queued when the pause came
        // (it plays out, then the fade): at most its 0.2 s lead plus one 93 ms write.
        #expect(elapsed >= .milliseconds(1300))
        let seconds = run.positions.map(\.seconds)
        #expect(seconds == seconds.sorted() && (seconds.last ?? 0) <= 1.0)
        // Not one sample lost or repeated across the pause: only the fades differ.
        // (The tone is 22.05 kHz mono; the output stereo at 44.1 kHz: frames of the left channel.)
        let written = try FixtureAudio.readWAV(out).pcm
        let reference = leftChannel(try heardPCM(tone.mp3).samples)
        let samples = leftChannel(written.samples)
        #expect(samples.count == reference.count)
        let differing = zip(samples, reference).filter { $0 != $1 }.count
        #expect(differing > 0 && differing <= 2 * Int(0.030 * 44100) + 2)
    }

    @Test func skipFadesOutInsteadOfClickingAndPlaysTheNext() async throws {
        let long = try FixtureAudio.tone(seconds: 3, frequency: 300)
        let next = try FixtureAudio.tone(frames: 11_025, frequency: 600)
        let dir = try TemporaryDirectory()
        let out = dir.file("skip.wav")
        let queue = AudioQueue(
            sink: PacedSink(wrapping: WAVFileSink(url: out)), fade: .milliseconds(30),
            positionInterval: .milliseconds(50))
        await queue.enqueue(long.mp3, id: "long")
        await queue.enqueue(next.mp3, id: "next")
        Self.hold(0.6)
        await queue.skip()
        let run = try await collect(queue) { $0 == .finished(id: "next") }
        await queue.shutdown()
        guard run.milestones.count == 4, case .stopped("long", let at) = run.milestones[1] else {
            Issue.record("unexpected events \(run.milestones)"); return
        }
        #expect(run.milestones[0] == .started(id: "long"))
        #expect(run.milestones[2...] == [.started(id: "next"), .finished(id: "next")])
        #expect(at > 0.4 && at < 1.5)
        // (22.05 kHz mono tones on a stereo 44.1 kHz output: frames of the left channel.)
        let samples = leftChannel(try FixtureAudio.readWAV(out).pcm.samples)
        let cut = Int((at * 44100).rounded())
        #expect(samples.count == cut + (try heardPCM(next.mp3)).count / 4)
        // The 30 ms (1323 frames) before the cut ramp down: loud at the start of the fade, near
        // silent at its end, where the unfaded tone is still loud.
        let reference = leftChannel(try heardPCM(long.mp3).samples)
        let fade = Int(0.030 * 44100)
        let loudBefore = reference[(cut - fade)..<cut].map { abs(Int($0)) }.max() ?? 0
        let tail = samples[(cut - fade / 10)..<cut].map { abs(Int($0)) }.max() ?? 0
        #expect(loudBefore > 5500)  // the tone at 0.3 of full scale, 3 dB down on each channel
        #expect(tail < loudBefore / 8)
        let same = samples[..<(cut - fade)] == reference[..<(cut - fade)]  // not diffed: a million samples
        #expect(same)
    }

    @Test func stopForgetsTheRestButTheQueueStaysUsable() async throws {
        let long = try FixtureAudio.tone(seconds: 3)
        let other = try FixtureAudio.speech("Never heard.")
        let after = try FixtureAudio.tone(seconds: 0.3, frequency: 660)
        let queue = AudioQueue(sink: PacedSink(wrapping: NullSink()), positionInterval: .milliseconds(50))
        await queue.enqueue(long.mp3, id: "long")
        await queue.enqueue(other.mp3, id: "other")
        Self.hold(0.3)
        await queue.stop()
        let first = try await collect(queue) { if case .stopped = $0 { true } else { false } }
        #expect(await queue.pendingIDs.isEmpty)
        await queue.enqueue(after.mp3, id: "after")
        let second = try await collect(queue) { $0 == .finished(id: "after") }
        await queue.shutdown()
        #expect(first.milestones.first == .started(id: "long"))
        #expect(first.milestones.count == 2)
        #expect(second.milestones == [.started(id: "after"), .finished(id: "after")])
    }

    @Test func aFailureIsReportedAfterWhatIsStillBeingHeard() async throws {
        // The device still holds the end of the tone when the next item fails to open: the
        // failure must not overtake the tone's `finished`.
        let tone = try FixtureAudio.tone(seconds: 0.5)
        let dir = try TemporaryDirectory()
        let missing = dir.file("gone.mp3")
        let queue = AudioQueue(sink: PacedSink(wrapping: NullSink(), lead: .milliseconds(300)))
        await queue.enqueue(tone.mp3, id: "tone")
        await queue.enqueue(missing, id: "gone")
        let run = try await collect(queue) { if case .failed = $0 { true } else { false } }
        await queue.shutdown()
        #expect(
            run.milestones == [
                .started(id: "tone"), .finished(id: "tone"),
                .failed(id: "gone", message: "\(missing.path): no such file"),
            ])
    }

    /// Controls fired at random while items play (good and bad, paced like a device): every item
    /// still ends exactly once, in order, and the queue neither deadlocks nor loses an item.
    @Test func randomControlsNeverLoseOrReorderItems() async throws {
        let tone = try FixtureAudio.tone(seconds: 0.15, frequency: 500)
        let dir = try TemporaryDirectory()
        let bad = dir.file("bad.mp3")
        try Data("<html>404</html>".utf8).write(to: bad)
        let queue = AudioQueue(
            sink: PacedSink(wrapping: NullSink(), lead: .milliseconds(40)), fade: .milliseconds(10),
            positionInterval: .milliseconds(20))
        let ids = (0..<20).map { "item\($0)" }
        for (i, id) in ids.enumerated() { await queue.enqueue(i % 5 == 3 ? bad : tone.mp3, id: id) }
        var state: UInt64 = 99
        for _ in 0..<40 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            switch (state >> 33) % 4 {
            case 0: await queue.skip()
            case 1: await queue.pause()
            case 2: await queue.resume()
            default: await queue.setVolume(Double((state >> 40) % 100) / 100)
            }
            Self.hold(0.02)
        }
        await queue.resume()
        let run = try await collect(queue) { event in
            switch event {
            case .finished("item19"), .stopped("item19", _), .failed("item19", _): true
            default: false
            }
        }
        await queue.shutdown()
        let ended = run.milestones.compactMap { event -> String? in
            switch event {
            case .finished(let id), .stopped(let id, _), .failed(let id, _): id
            default: nil
            }
        }
        #expect(ended == ids)
        let started = run.milestones.compactMap { if case .started(let id) = $0 { id } else { nil } }
        #expect(started == ids.enumerated().filter { $0.offset % 5 != 3 }.map(\.element))
    }

    @Test func volumeScalesEverySample() async throws {
        let fixture = try FixtureAudio.speech("Half as loud.")
        let dir = try TemporaryDirectory()
        let out = dir.file("quiet.wav")
        let queue = AudioQueue(sink: WAVFileSink(url: out))
        await queue.setVolume(0.5)
        #expect(await queue.volume == 0.5)
        await queue.enqueue(fixture.mp3, id: "q")
        _ = try await collect(queue) { $0 == .finished(id: "q") }
        await queue.shutdown()
        let written = try FixtureAudio.readWAV(out).pcm.samples
        let reference = try heardPCM(fixture.mp3).samples
        #expect(written.count == reference.count)
        let halved = written == reference.map { Int16((Float($0) * 0.5).rounded()) }  // not diffed
        #expect(halved)
    }

    @Test func blobsQueueLikeFiles() async throws {
        let fixture = try FixtureAudio.speech("From memory.")
        let sink = NullSink()
        let queue = AudioQueue(sink: sink)
        await queue.enqueue(data: try Data(contentsOf: fixture.mp3), name: "memo.mp3", id: "m")
        await queue.enqueue(data: Data("not audio at all".utf8), name: "text.mp3", id: "x")
        let run = try await collect(queue) { if case .failed = $0 { true } else { false } }
        await queue.shutdown()
        #expect(
            run.milestones == [
                .started(id: "m"), .finished(id: "m"),
                .failed(id: "x", message: "text.mp3: not audio walkscape plays (not a known audio format)"),
            ])
        #expect(sink.totalFrames == (try heardPCM(fixture.mp3)).count / 4)
    }
}

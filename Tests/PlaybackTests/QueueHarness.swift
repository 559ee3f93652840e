import Foundation
import Testing

@testable import Playback

/// Reads a queue's events until `done` says the run is over, with a watchdog so a hung queue fails
/// the test instead of hanging it. Position events are kept apart: their exact count depends on timing.
struct QueueRun {
    var events: [AudioQueue.Event] = []
    var positions: [(id: String, seconds: Double)] = []
    /// The events that do not depend on timing.
    var milestones: [AudioQueue.Event] { events.filter { if case .position = $0 { false } else { true } } }
}

func collect(
    _ queue: AudioQueue, timeout: Duration = .seconds(30),
    until done: @escaping @Sendable (AudioQueue.Event) -> Bool
) async throws -> QueueRun {
    let watchdog = Task {
        try await Task.sleep(for: timeout)
        await queue.shutdown()
    }
    var run = QueueRun()
    var finished = false
    for await event in queue.events {
        run.events.append(event)
        if case .position(let id, let seconds) = event { run.positions.append((id, seconds)) }
        if done(event) { finished = true; break }
    }
    watchdog.cancel()
    #expect(finished, "the queue did not reach the expected event within \(timeout)")
    return run
}

/// A file's PCM as a queue it opened writes it: decoded, then converted to the output's format
/// (stereo, 44.1 kHz at least; `PlaybackEngine.outputFormat`) by libswresample.
func heardPCM(_ url: URL) throws -> Data {
    let format = try AudioDecoders.open(url).format
    return try SampleConverter.convertAll(
        try decodedAny(url), from: format, to: PlaybackEngine.outputFormat(first: format))
}

/// The left channel of interleaved stereo samples (a mono item plays the same on both).
func leftChannel(_ samples: [Int16]) -> [Int16] { stride(from: 0, to: samples.count, by: 2).map { samples[$0] } }

/// Decodes a file of any format completely.
func decodedAny(_ url: URL) throws -> Data {
    let decoder = try AudioDecoders.open(url)
    var pcm = Data()
    while let chunk = try decoder.nextChunk() { pcm.append(contentsOf: UnsafeRawBufferPointer(chunk)) }
    return pcm
}

/// Decodes a file completely (the reference the sinks' output is compared with).
func decodedPCM(_ url: URL) throws -> Data {
    let decoder = try MP3Decoder(contentsOf: url)
    var pcm = Data()
    while let chunk = try decoder.nextChunk() { pcm.append(contentsOf: UnsafeRawBufferPointer(chunk)) }
    return pcm
}

extension Data {
    /// Little-endian 16-bit samples.
    var samples: [Int16] {
        withUnsafeBytes { raw in raw.bindMemory(to: Int16.self).map { Int16(littleEndian: $0) } }
    }
}

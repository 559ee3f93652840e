import Foundation
import Synchronization

/// Real MP3 fixtures made at test time: speech from `espeak-ng` or tones and silence written as WAV
/// here, encoded with `lame` (`-b 64` by default). The source WAV's sample count is known exactly,
/// so tests can check a decoder against it. Files are cached for the test process in one temporary
/// folder, so each is encoded once however many tests use it.
public enum FixtureAudio {
    public struct Fixture: Sendable {
        /// The encoded file.
        public var mp3: URL
        /// The WAV it was encoded from.
        public var wav: URL
        public var sampleRate: Int
        public var channels: Int
        /// PCM frames in the source WAV: what a gapless decoder must produce.
        public var frames: Int
        public var duration: Double { Double(frames) / Double(sampleRate) }
    }

    public struct FixtureError: Error, CustomStringConvertible {
        public var description: String
    }

    private static let cache = Mutex<[String: Fixture]>([:])

    /// The folder fixtures live in for this test process; removed when the process exits.
    public static let directory: URL = {
        let url = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent(
                "walkscape-fixtures-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: FixtureAudio.directory) }
        return url
    }()

    /// Speech by `espeak-ng` (22.05 kHz mono), encoded with `lame` and `lameArguments`.
    public static func speech(_ text: String, lameArguments: [String] = ["-b", "64"]) throws -> Fixture {
        let key = "speech|\(text)|\(lameArguments.joined(separator: " "))"
        return try cached(key) { base in
            let wav = base.appendingPathExtension("wav")
            guard let espeak = which("espeak-ng") else { throw FixtureError(description: "espeak-ng is not installed") }
            let result = try run(espeak, ["-w", wav.path, text])
            guard result.status == 0 else { throw FixtureError(description: "espeak-ng failed: \(result.stderr)") }
            return try encode(wav, base: base, lameArguments: lameArguments)
        }
    }

    /// A sine tone (or silence with `frequency: 0`) of exactly `frames` frames, encoded with `lame`.
    public static func tone(
        frames: Int, sampleRate: Int = 22050, channels: Int = 1, frequency: Double = 440,
        amplitude: Double = 0.3, lameArguments: [String] = ["-b", "64"]
    ) throws -> Fixture {
        let key =
            "tone|\(frames)|\(sampleRate)|\(channels)|\(frequency)|\(amplitude)|\(lameArguments.joined(separator: " "))"
        return try cached(key) { base in
            let wav = base.appendingPathExtension("wav")
            var samples = [Int16]()
            samples.reserveCapacity(frames * channels)
            for i in 0..<frames {
                let t = Double(i) / Double(sampleRate)
                for c in 0..<channels {
                    // A slightly different pitch per channel, so a channel swap would show.
                    let value = amplitude * 32767 * sin(2 * .pi * frequency * (1 + 0.25 * Double(c)) * t)
                    samples.append(Int16(value.rounded()))
                }
            }
            try writeWAV(samples, sampleRate: sampleRate, channels: channels, to: wav)
            return try encode(wav, base: base, lameArguments: lameArguments)
        }
    }

    /// Seconds of tone, for tests that care about time rather than exact counts.
    public static func tone(
        seconds: Double, sampleRate: Int = 22050, channels: Int = 1, frequency: Double = 440,
        lameArguments: [String] = ["-b", "64"]
    ) throws -> Fixture {
        try tone(
            frames: Int(seconds * Double(sampleRate)), sampleRate: sampleRate, channels: channels,
            frequency: frequency, lameArguments: lameArguments)
    }

    /// Seconds of digital silence.
    public static func silence(seconds: Double, sampleRate: Int = 22050, channels: Int = 1) throws -> Fixture {
        try tone(frames: Int(seconds * Double(sampleRate)), sampleRate: sampleRate, channels: channels, frequency: 0)
    }

    private static func cached(_ key: String, make: (URL) throws -> Fixture) throws -> Fixture {
        try cache.withLock { cache in
            if let hit = cache[key] { return hit }
            let base = directory.appendingPathComponent("f\(cache.count)-\(UUID().uuidString.prefix(6))")
            let fixture = try make(base)
            cache[key] = fixture
            return fixture
        }
    }

    private static func encode(_ wav: URL, base: URL, lameArguments: [String]) throws -> Fixture {
        guard let lame = which("lame") else { throw FixtureError(description: "lame is not installed") }
        let mp3 = base.appendingPathExtension("mp3")
        let result = try run(lame, ["--quiet"] + lameArguments + [wav.path, mp3.path])
        guard result.status == 0 else { throw FixtureError(description: "lame failed: \(result.stderr)") }
        let source = try readWAV(wav)
        return Fixture(
            mp3: mp3, wav: wav, sampleRate: source.sampleRate, channels: source.channels,
            frames: source.pcm.count / (2 * source.channels))
    }

    /// A 16-bit PCM WAV's format and sample bytes (the `data` chunk, clipped to the file's end).
    public static func readWAV(_ url: URL) throws -> (sampleRate: Int, channels: Int, pcm: Data) {
        let data = try Data(contentsOf: url)
        let bytes = [UInt8](data)
        func u32(_ i: Int) -> Int {
            Int(bytes[i]) | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2]) << 16 | Int(bytes[i + 3]) << 24
        }
        func u16(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
        guard bytes.count >= 12, String(decoding: bytes[0..<4], as: UTF8.self) == "RIFF",
            String(decoding: bytes[8..<12], as: UTF8.self) == "WAVE"
        else {
            throw FixtureError(description: "\(url.path) is not a WAV file")
        }
        var offset = 12
        var rate = 0, channels = 0
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            let body = offset + 8
            if id == "fmt " {
                channels = u16(body + 2)
                rate = u32(body + 4)
            } else if id == "data" {
                let end = min(bytes.count, body + size)
                return (rate, channels, Data(bytes[body..<end]))
            }
            offset = body + size + (size & 1)
        }
        throw FixtureError(description: "\(url.path) has no data chunk")
    }

    /// Writes 16-bit little-endian interleaved samples as a WAV file.
    public static func writeWAV(_ samples: [Int16], sampleRate: Int, channels: Int, to url: URL) throws {
        var data = Data()
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { data.append(contentsOf: $0) } }
        let bytes = samples.count * 2
        data.append(contentsOf: Array("RIFF".utf8)); u32(36 + bytes)
        data.append(contentsOf: Array("WAVEfmt ".utf8)); u32(16); u16(1); u16(channels)
        u32(sampleRate); u32(sampleRate * channels * 2); u16(channels * 2); u16(16)
        data.append(contentsOf: Array("data".utf8)); u32(bytes)
        samples.withUnsafeBytes { raw in
            for sample in raw.bindMemory(to: Int16.self) {
                withUnsafeBytes(of: sample.littleEndian) { data.append(contentsOf: $0) }
            }
        }
        try data.write(to: url)
    }

    /// What `mpg123 -w` decodes `mp3` to: the reference decoder output.
    public static func referenceDecode(_ mp3: URL) throws -> (sampleRate: Int, channels: Int, pcm: Data) {
        guard let mpg123 = which("mpg123") else { throw FixtureError(description: "mpg123 is not installed") }
        let out = directory.appendingPathComponent("ref-\(UUID().uuidString.prefix(8)).wav")
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try run(mpg123, ["-q", "-w", out.path, mp3.path])
        guard result.status == 0 else { throw FixtureError(description: "mpg123 -w failed: \(result.stderr)") }
        return try readWAV(out)
    }
}

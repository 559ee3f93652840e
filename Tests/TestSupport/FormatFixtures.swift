import Foundation

/// Narrations in every format the service may hold, made at test time with Debian's `ffmpeg` from
/// one espeak-ng recording, and `ffmpeg`'s own decoding of each (`-f s16le`) as the reference a
/// decoder is checked against.
public enum FormatFixtures {
    /// One way of encoding the recording: the file's extension and ffmpeg's output arguments.
    public struct Encoding: Sendable, CustomStringConvertible {
        public var name: String
        public var fileExtension: String
        public var arguments: [String]
        /// Lossless: the PCM must equal ffmpeg's decoding exactly.
        public var lossless: Bool
        public var description: String { name }

        public init(_ name: String, _ fileExtension: String, _ arguments: [String], lossless: Bool = false) {
            self.name = name
            self.fileExtension = fileExtension
            self.arguments = arguments
            self.lossless = lossless
        }
    }

    public static let encodings: [Encoding] = [
        Encoding("WAV s16 22.05 kHz mono", "wav", ["-c:a", "pcm_s16le"], lossless: true),
        Encoding("WAV float 44.1 kHz stereo", "wav", ["-ar", "44100", "-ac", "2", "-c:a", "pcm_f32le"]),
        Encoding("WAV A-law 8 kHz", "wav", ["-ar", "8000", "-c:a", "pcm_alaw"], lossless: true),
        Encoding("WAV µ-law 8 kHz", "wav", ["-ar", "8000", "-c:a", "pcm_mulaw"], lossless: true),
        // Index first (`faststart`), as a service streams it.
        Encoding(
            "AAC in M4A 44.1 kHz", "m4a", ["-ar", "44100", "-c:a", "aac", "-b:a", "96k", "-movflags", "+faststart"]),
        Encoding("AAC in ADTS 48 kHz stereo", "aac", ["-ar", "48000", "-ac", "2", "-c:a", "aac", "-f", "adts"]),
        Encoding("Ogg Vorbis 44.1 kHz", "ogg", ["-ar", "44100", "-c:a", "libvorbis", "-q:a", "3"]),
        Encoding("Opus 48 kHz", "opus", ["-ar", "48000", "-c:a", "libopus", "-b:a", "48k"]),
        Encoding("FLAC 48 kHz stereo", "flac", ["-ar", "48000", "-ac", "2", "-c:a", "flac"], lossless: true),
        // What browsers record (MediaRecorder), an editor's export on a Mac, a broadcast WAV past 4 GB.
        Encoding("Opus in WebM 48 kHz", "webm", ["-ar", "48000", "-c:a", "libopus", "-b:a", "48k"]),
        Encoding("AIFF s16 44.1 kHz", "aiff", ["-ar", "44100", "-c:a", "pcm_s16be"], lossless: true),
        Encoding("RF64 s16 22.05 kHz", "wav", ["-c:a", "pcm_s16le", "-rf64", "always"], lossless: true),
    ]

    public struct FixtureError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The recording encoded as `encoding` (cached for the test process).
    public static func file(_ encoding: Encoding) throws -> URL {
        let source = try FixtureAudio.speech("The old bridge over the river, and its shops of gold.")
        let name = encoding.name.map { $0.isLetter || $0.isNumber ? $0 : "-" }
        let url = FixtureAudio.directory.appendingPathComponent(String(name) + "." + encoding.fileExtension)
        return try made(url) { try ffmpeg(["-i", source.wav.path] + encoding.arguments + [$0.path]) }
    }

    /// `url`, made by `make` (given where to write) unless this process made it already. Made
    /// under a temporary name and renamed: a test running beside another that asks for the same
    /// fixture never reads it half-written.
    static func made(_ url: URL, _ make: (URL) throws -> Void) throws -> URL {
        if FileManager.default.fileExists(atPath: url.path) { return url }
        let partial = url.deletingLastPathComponent().appendingPathComponent(
            "part-\(UUID().uuidString.prefix(8))-" + url.lastPathComponent)
        defer { try? FileManager.default.removeItem(at: partial) }
        try make(partial)
        guard rename(partial.path, url.path) == 0 else {
            throw FixtureError(description: "cannot rename \(partial.path): \(String(cString: strerror(errno)))")
        }
        return url
    }

    /// `ffmpeg -i FILE -f s16le` at the file's own rate, mono or stereo: what walkscape must play.
    public static func reference(_ url: URL, channels: Int) throws -> Data {
        guard let ffmpeg = which("ffmpeg") else { throw FixtureError(description: "ffmpeg is not installed") }
        let result = try run(
            ffmpeg, ["-v", "error", "-i", url.path, "-ac", "\(channels)", "-f", "s16le", "-c:a", "pcm_s16le", "-"])
        guard result.status == 0 else {
            throw FixtureError(description: "ffmpeg failed on \(url.path): \(result.stderr)")
        }
        return result.stdoutData
    }

    /// Runs `ffmpeg -y -v error ARGS`.
    public static func ffmpeg(_ arguments: [String]) throws {
        guard let ffmpeg = which("ffmpeg") else { throw FixtureError(description: "ffmpeg is not installed") }
        let result = try run(ffmpeg, ["-y", "-v", "error"] + arguments)
        guard result.status == 0 else {
            throw FixtureError(description: "ffmpeg \(arguments) failed: \(result.stderr)")
        }
    }
}

extension FormatFixtures {
    /// `ffmpeg -af ebur128=peak=true`'s summary for a file (or the sample range `frames` of it):
    /// integrated loudness (LUFS; nil when ffmpeg says -70 or below, its silent) and true peak (dBFS).
    public static func ebur128(_ url: URL, frames: Range<Int>? = nil) throws -> (integrated: Double?, truePeak: Double)
    {
        guard let ffmpeg = which("ffmpeg") else { throw FixtureError(description: "ffmpeg is not installed") }
        let trim = frames.map { "atrim=start_sample=\($0.lowerBound):end_sample=\($0.upperBound)," } ?? ""
        let result = try run(
            ffmpeg, ["-nostats", "-i", url.path, "-af", trim + "ebur128=peak=true", "-f", "null", "-"])
        guard result.status == 0, let summary = result.stderr.range(of: "Summary:") else {
            throw FixtureError(description: "ffmpeg ebur128 failed on \(url.path): \(result.stderr.suffix(300))")
        }
        func value(after label: String) -> Double? {
            let text = result.stderr[summary.upperBound...]
            guard let at = text.range(of: label) else { return nil }
            let rest = text[at.upperBound...].drop { $0 == " " }
            return Double(rest.prefix { "-+.0123456789inf".contains($0) })
        }
        guard let integrated = value(after: "I:"), let peak = value(after: "Peak:") else {
            throw FixtureError(description: "no loudness summary from ffmpeg for \(url.path)")
        }
        return (integrated <= -70 ? nil : integrated, peak)
    }

    /// The recording made `decibels` louder or quieter (WAV, 22.05 kHz mono), cached.
    public static func speech(_ text: String, gainDB decibels: Double, fileExtension: String = "wav") throws -> URL {
        let source = try FixtureAudio.speech(text)
        let name = "gain\(decibels)-\(text.hashValue & 0xffff_ffff).\(fileExtension)"
        let url = FixtureAudio.directory.appendingPathComponent(name)
        return try made(url) { try ffmpeg(["-i", source.wav.path, "-af", "volume=\(decibels)dB", $0.path]) }
    }
}

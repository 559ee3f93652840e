import Foundation
import Testing

@testable import Playback

/// The mono upmix's sample loops (in C with SSE2) against their rules written out in Swift, for
/// every 16-bit sample value, and a count that leaves a tail past the last block of eight.
struct SampleKernelTests {
    /// Every sample value once, then five more (a tail the vector loop leaves to the scalar one).
    static let everyValue: [Int16] =
        (0..<65_536).map { Int16(truncatingIfNeeded: $0 &* 40_503) } + [
            -32_768, 32_767, -1, 1, 0,
        ]

    static func upmixed(_ input: [Int16], gain: Float) throws -> [Int16] {
        let mono = PCMFormat(sampleRate: 44_100, channels: 1), stereo = PCMFormat(sampleRate: 44_100, channels: 2)
        let converter = try SampleConverter(from: mono, to: stereo)
        #expect(converter.upmixOnly)
        let pcm = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * input.count, alignment: 16)
        defer { pcm.deallocate() }
        input.withUnsafeBytes { pcm.copyMemory(from: $0) }
        return Array(converter.upmix(pcm, gain: gain).bindMemory(to: Int16.self))
    }

    @Test("at unity: each sample 3 dB down (Q15, to nearest) on both channels")
    func unity() throws {
        let out = try Self.upmixed(Self.everyValue, gain: 1)
        let expected = Self.everyValue.flatMap { s -> [Int16] in
            let v = Int16(truncatingIfNeeded: (Int32(s) * 23_170 + 16_384) >> 15)
            return [v, v]
        }
        let same = out == expected
        #expect(same, "\(zip(out, expected).enumerated().first { $1.0 != $1.1 }.map { "\($0): \($1)" } ?? "length")")
    }

    @Test(
        "with a level: sample times the level and 3 dB down in Q16, half away from zero, saturated",
        arguments: [0, 0.01, 0.5, 0.70710677, 0.999, 1.0001, 1.4142135, 1.41422, 2, 10, 22.6, 31.99, 32, 40] as [Float])
    func withALevel(gain: Float) throws {
        let out = try Self.upmixed(Self.everyValue, gain: gain)
        let q = Int64((Double(min(32, max(0, gain))) * 0.5.squareRoot() * 65536).rounded())
        let expected = Self.everyValue.flatMap { s -> [Int16] in
            let product = Int64(s) * q
            let scaled = (product + 32768 + (product < 0 ? -1 : 0)) >> 16
            let v = Int16(min(32767, max(-32768, scaled)))
            return [v, v]
        }
        let same = out == expected
        #expect(same, "\(zip(out, expected).enumerated().first { $1.0 != $1.1 }.map { "\($0): \($1)" } ?? "length")")
    }
}

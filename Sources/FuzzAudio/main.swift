import CFuzzerShim
import Foundation
import Playback
import TourModel

#if canImport(Glibc)
    import Glibc
#endif

/// libFuzzer target for the decoders' input: any bytes, as a narration file held in memory. The
/// sniffer picks the decoder (libmpg123 or FFmpeg's libraries) as for a real file. Crashes, hangs
/// and broken invariants are findings: a decoder that opens must hand out whole frames of its own
/// format, never more than a sane bound, and (for what FFmpeg decodes) `exactFrameCount()` must agree
/// with decoding.
///
///     scripts/fuzz.sh audio 600        (make fuzz-audio FUZZ_SECONDS=600)
///
/// Seeds: scripts/fuzz.sh makes one short file of each format with ffmpeg into an empty corpus.
let callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32 = { data, size in
    let bytes = data.map { Data(bytes: $0, count: size) } ?? Data()
    guard let decoder = try? AudioDecoders.open(data: bytes, name: "fuzz") else { return 0 }
    let format = decoder.format
    precondition(format.channels == 1 || format.channels == 2, "channels \(format.channels)")
    precondition(format.sampleRate > 0 && format.sampleRate <= 768_000, "rate \(format.sampleRate)")
    var frames = 0
    do {
        while let chunk = try decoder.nextChunk() {
            precondition(chunk.count % format.bytesPerFrame == 0, "a chunk of \(chunk.count) bytes")
            frames += chunk.count / format.bytesPerFrame
            // Nothing decodes to more than an hour a megabyte: a runaway decoder is a finding.
            precondition(frames <= max(1, size) * format.sampleRate * 4, "\(frames) frames from \(size) bytes")
        }
    } catch {
        return 0
    }
    precondition(decoder.framesDecoded == frames, "framesDecoded \(decoder.framesDecoded) != \(frames)")
    // MP3's count comes from its Info tag when the file's size agrees with it (by design: probing a
    // long file costs microseconds), so a damaged MP3 body may decode to less than its tag says.
    // Every other format is counted by decoding, which must agree exactly.
    if !(decoder is MP3Decoder), let again = try? AudioDecoders.open(data: bytes, name: "fuzz"),
        let counted = try? again.exactFrameCount()
    {
        precondition(counted == frames, "exactFrameCount \(counted) != decoded \(frames)")
    }
    return 0
}

guard ws_fuzzer_available() != 0 else {
    FileHandle.standardError.write(
        Data("fuzz-audio: built without libFuzzer; build with -Xswiftc -sanitize=fuzzer (see scripts/fuzz.sh)\n".utf8))
    exit(2)
}
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, callback))

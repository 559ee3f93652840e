import CFuzzerShim
import Foundation
import Playback

#if canImport(Glibc)
    import Glibc
#endif

/// libFuzzer target for the SRT parser: any bytes, decoded as UTF-8 (lossily, as a file's text
/// would be). Crashes, hangs and broken invariants are findings: every cue must have finite,
/// ordered times, and `cue(at:)` must agree with a linear scan of the cues (the newest-starting
/// cue that contains t wins), at every cue boundary and between them.
///
///     scripts/fuzz.sh srt 600        (make fuzz-srt FUZZ_SECONDS=600)
///
/// With an empty corpus folder as its argument, the target first writes seed files into it.
let callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32 = { data, size in
    let text = data.map { String(decoding: UnsafeBufferPointer(start: $0, count: size), as: UTF8.self) } ?? ""
    guard let track = try? SubtitleTrack(parsing: text) else { return 0 }
    var probes: [Double] = [0, -1, .greatestFiniteMagnitude]
    for cue in track.cues {
        precondition(cue.start.isFinite && cue.end.isFinite && cue.start >= 0, "bad times \(cue)")
        precondition(cue.start <= cue.end, "cue ends before it starts: \(cue)")
        probes += [cue.start, cue.end, (cue.start + cue.end) / 2, cue.start.nextDown, cue.end.nextDown]
    }
    for t in probes {
        // The reference answer, by brute force: the cue containing t that starts last (ties: later in file).
        var expected: SubtitleTrack.Cue?
        for cue in track.cues where cue.start <= t && t < cue.end {
            if expected == nil || cue.start >= expected!.start { expected = cue }
        }
        let found = track.cue(at: t)
        precondition(
            found == expected, "cue(at: \(t)) = \(String(describing: found)), expected \(String(describing: expected))")
    }
    return 0
}

/// Seeds covering each quirk the parser accepts, so the fuzzer starts from valid structure.
let seeds = [
    "1\n00:00:01,000 --> 00:00:02,500\nWelcome to Bologna.\n\n2\n00:00:03,000 --> 00:00:04,250\nLook up.\n",
    "\u{FEFF}1\r\n00:00:01.000 --> 00:00:02.500  \r\nCRLF and a BOM\r\n\r\n",
    "00:00:01,000 --> 00:00:02,500\nno index\n00:00:03,000 --> 00:00:04,000\nno blank line\n",
    "7\n01:02,500 --> 01:04,000 X1:100 X2:600\nhours omitted\n42\nnumber in text\n",
    "1\n00:00:00,000 --> 00:00:10,000\nLong\n\n2\n00:00:02,000 --> 00:00:04,000\nOverlap\n",
    "1\r00:00:01,5 --> 00:00:02,25\rlone CR\r",
]

guard ws_fuzzer_available() != 0 else {
    FileHandle.standardError.write(
        Data("fuzz-srt: built without libFuzzer; build with -Xswiftc -sanitize=fuzzer (see scripts/fuzz.sh)\n".utf8))
    exit(2)
}
if let corpus = CommandLine.arguments.dropFirst().first(where: { !$0.hasPrefix("-") }),
    (try? FileManager.default.contentsOfDirectory(atPath: corpus))?.isEmpty == true
{
    for (i, seed) in seeds.enumerated() {
        try? Data(seed.utf8).write(to: URL(fileURLWithPath: corpus).appendingPathComponent("seed-\(i).srt"))
    }
}
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, callback))

import CFuzzerShim
import Foundation
import Positioning
import TourModel

#if canImport(Glibc)
    import Glibc
#endif

/// libFuzzer target for the NMEA parser: any bytes, split into lines as the trace reader
/// splits them. Crashes, hangs and broken invariants (a fix outside WGS84 ranges, counters that
/// do not add up, time that is not finite) are findings.
///
///     swift build -c release --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer --product fuzz-nmea
///     .build-fuzz/release/fuzz-nmea -max_total_time=600 corpus-dir
let callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32 = { data, size in
    guard let data else { return 0 }
    var parser = NMEAParser()
    var fixes = 0
    func check(_ fix: Fix?) {
        guard let fix else { return }
        fixes += 1
        precondition(fix.coordinate.isValid, "fix outside WGS84 ranges: \(fix.coordinate)")
        precondition(fix.time.timeIntervalSince1970.isFinite, "time not finite")
        precondition(fix.mode >= .twoD, "a fix without a position mode")
        if let e = fix.horizontalError { precondition(e >= 0 && !e.isNaN, "negative error \(e)") }
    }
    var start = 0
    for i in 0..<size where data[i] == 10 {
        check(parser.parse(line: UnsafeBufferPointer(start: data + start, count: i - start)))
        start = i + 1
    }
    if start < size || size == 0 {
        check(parser.parse(line: UnsafeBufferPointer(start: data + start, count: size - start)))
    }
    check(parser.finish())
    let s = parser.statistics
    precondition(s.fixes == fixes, "fix counter \(s.fixes) != \(fixes) fixes returned")
    precondition(s.isConsistent, "counters do not add up: \(s)")
    traceFileRoundTrip(data, size, expectedNMEAFixes: fixes)
    return 0
}

/// The same bytes as a file, through `TraceFile` with a 64-byte buffer: format detection, the
/// reader's refills, and the GPX reader (inputs that start with `<`) all get fuzzed too. For NMEA
/// the file path must give exactly the fixes the line-by-line parse gave.
let scratch = "/dev/shm/walkscape-fuzz-\(getpid()).trace"
let scratchURL = URL(fileURLWithPath: scratch)

func traceFileRoundTrip(_ data: UnsafePointer<UInt8>, _ size: Int, expectedNMEAFixes: Int) {
    let fd = open(scratch, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    precondition(fd >= 0, "cannot write \(scratch)")
    var offset = 0
    while offset < size {
        let n = write(fd, data + offset, size - offset)
        precondition(n > 0, "write failed")
        offset += n
    }
    close(fd)
    guard let trace = try? TraceFile(url: scratchURL, bufferSize: 64) else { return }
    var count = 0
    let stats = trace.forEachFix { fix in
        precondition(fix.coordinate.isValid, "trace fix outside WGS84 ranges: \(fix.coordinate)")
        precondition(fix.time.timeIntervalSince1970.isFinite, "trace time not finite")
        if let e = fix.horizontalError { precondition(e.isFinite && e >= 0, "trace error \(e)") }
        for value in [fix.altitude, fix.speed, fix.track, fix.hdop] {
            if let value { precondition(value.isFinite, "a non-finite number in \(fix)") }
        }
        if let n = fix.satellites { precondition(n >= 0, "negative satellites") }
        count += 1
    }
    precondition(stats.fixes == count, "trace counter \(stats.fixes) != \(count)")
    // What `walkscape trace` prints, from the same bytes (an absurd <hdop> once trapped here).
    let summary = TraceSummary(file: trace)
    precondition(summary.fixes == count, "summary counted \(summary.fixes) fixes, the file \(count)")
    _ = summary.text
    precondition(stats.readError == nil, "read error \(stats.readError ?? "")")
    if trace.format == .nmea {
        // Lines longer than the buffer are cut into pieces by the reader, and pieces can parse
        // differently; without long lines both paths must agree exactly.
        var longest = 0, run = 0
        for i in 0..<size { run = data[i] == 10 ? 0 : run + 1; longest = max(longest, run) }
        if longest < 64 {
            precondition(count == expectedNMEAFixes, "file path \(count) fixes, line path \(expectedNMEAFixes)")
        }
    }
}

guard ws_fuzzer_available() != 0 else {
    FileHandle.standardError.write(
        Data("fuzz-nmea: built without libFuzzer; build with -Xswiftc -sanitize=fuzzer (see scripts/fuzz.sh)\n".utf8))
    exit(2)
}
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, callback))

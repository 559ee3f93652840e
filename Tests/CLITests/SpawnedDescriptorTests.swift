import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The tests' own harness: a child it spawns holds no descriptor of the test process but its
/// standard three. A server that inherited the write end of another child's output pipe kept
/// that child's reader from seeing its end for as long as the server ran, and once stopped the
/// whole suite (both threads of the cooperative pool waiting so).
struct SpawnedDescriptorTests {
    @Test func aSpawnedChildHoldsOnlyItsStandardDescriptors() async throws {
        // A descriptor open here, not close-on-exec, as another test's pipe would be.
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let listing = try ChildProcess(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "ls /proc/$$/fd"])
        #expect(await listing.wait(timeout: 10) == 0)
        let descriptors = Set(listing.output.split(whereSeparator: \.isWhitespace).map(String.init))
        #expect(descriptors == ["0", "1", "2"], "\(descriptors)")
    }
}

/// `run`'s limit: a child that outlives it is killed and said to have been, whatever it holds;
/// one that ends in time is waited for as usual and is not.
struct RunLimitTests {
    @Test func aChildStillRunningAtTheLimitIsKilledAndSaidToBe() throws {
        let started = Date()
        let result = try run(URL(fileURLWithPath: "/bin/sleep"), ["30"], timeout: 0.3)
        #expect(result.timedOut)
        #expect(result.status == 128 + SIGKILL)  // as a shell says it
        #expect(Date().timeIntervalSince(started) < 10)
    }

    @Test func aChildThatEndsInTimeIsNotKilled() throws {
        let result = try run(URL(fileURLWithPath: "/bin/sh"), ["-c", "echo out; echo err >&2; exit 3"], timeout: 30)
        #expect(!result.timedOut)
        #expect(result.status == 3)
        #expect(result.stdout == "out\n")
        #expect(result.stderr == "err\n")
    }
}

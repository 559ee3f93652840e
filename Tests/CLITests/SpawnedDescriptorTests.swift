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

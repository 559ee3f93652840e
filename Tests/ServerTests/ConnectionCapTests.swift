import Foundation
import TestSupport
import Testing

@testable import WalkscapeServer

#if canImport(Glibc)
    import Glibc
#endif

/// One client address holds at most `ConnectionCounts.perAddressDefault` connections at once: one
/// more is closed before a byte is read, while another address is served and a place freed is
/// taken again. Without a cap, 20,000 idle sockets from one address took every descriptor the
/// server had, and /health went unanswered.
@Suite(.serialized)
struct ConnectionCapTests {
    /// Whether the server closed `fd` (end of file within the socket's receive timeout), having sent
    /// nothing.
    func closedByServer(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        return read(fd, &byte, 1) == 0
    }

    func health(_ fd: Int32) throws -> String {
        try RawHTTP.write(fd, "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        var answer = [UInt8](repeating: 0, count: 64)
        let n = read(fd, &answer, answer.count)
        return n > 0 ? String(decoding: answer[0..<n], as: UTF8.self) : ""
    }

    @Test func oneAddressHoldsAtMostItsShareAndAnotherIsStillServed() async throws {
        let server = try await ServerProcess.start()
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<ConnectionCounts.perAddressDefault {
            held.append(try RawHTTP.connect(port: server.port, timeout: 5))
        }
        let extra = try RawHTTP.connect(port: server.port, timeout: 5)
        defer { close(extra) }
        #expect(closedByServer(extra), "one connection past the cap was kept")

        let other = try RawHTTP.connect(port: server.port, timeout: 5, from: "127.0.0.2")
        defer { close(other) }
        #expect(try health(other).hasPrefix("HTTP/1.1 200"), "another address was not served")

        // A place freed is taken again (the server counts a closed connection out).
        close(held.removeLast())
        var answered = ""
        for _ in 0..<50 where !answered.hasPrefix("HTTP/1.1 200") {
            let again = try RawHTTP.connect(port: server.port, timeout: 5)
            answered = try health(again)
            close(again)
            if !answered.hasPrefix("HTTP/1.1 200") { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(answered.hasPrefix("HTTP/1.1 200"), "\(answered)")
        await server.stop()
    }

    @Test func theCountsAdmitUpToEachCapAndFreeOnRelease() {
        let counts = ConnectionCounts(perAddress: 2)
        counts.limitTotal(to: 3)
        #expect(counts.admit("a") && counts.admit("a"))
        #expect(!counts.admit("a"))
        #expect(counts.admit("b"))
        #expect(!counts.admit("c"), "past the total")
        counts.release("a")
        #expect(counts.admit("c"))
        #expect(counts.open == 3)
    }

    /// A request body trickled a byte every half second (each byte resetting the idle timeout of
    /// 1 s) is given up four idle timeouts after its head, not held for as long as the client likes.
    @Test func aBodyTrickledAByteAtATimeIsGivenUpAfterFourIdleTimeouts() async throws {
        var options = ServerProcess.Options()
        options.extraArguments = ["--idle-timeout", "1"]
        let server = try await ServerProcess.start(options)
        let fd = try RawHTTP.connect(port: server.port, timeout: 1)
        defer { close(fd) }
        func send(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            return Glibc.send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count
        }
        #expect(
            send(
                "POST /analytics/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
            ))
        let started = ContinuousClock.now
        var closed = false
        while !closed, ContinuousClock.now - started < .seconds(15) {
            try await Task.sleep(for: .milliseconds(500))
            var byte: UInt8 = 0
            if recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0 || !send(" ") { closed = true }
        }
        let took = ContinuousClock.now - started
        #expect(closed, "the trickled body was kept for 15 s")
        #expect(took >= .seconds(3), "given up after \(took), before its deadline")
        #expect(try await HTTPTestClient(server).get("/health").status == 200)
        await server.stop()
    }
}

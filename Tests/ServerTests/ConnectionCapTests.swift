import FileAccess
import Foundation
import NIOCore
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

    func healthOnANewConnection(_ port: Int) throws -> String {
        let fd = try RawHTTP.connect(port: port, timeout: 5)
        defer { close(fd) }
        return try health(fd)
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

    /// A request body trickled a byte every quarter second (each byte resetting the idle timeout of
    /// 1 s) is given up four idle timeouts after its head, not held for as long as the client likes.
    @Test func aBodyTrickledAByteAtATimeIsGivenUpAfterFourIdleTimeouts() async throws {
        var options = ServerProcess.Options()
        options.extraArguments = ["--idle-timeout", "1"]
        let server = try await ServerProcess.start(options)
        let fd = try RawHTTP.connect(port: server.port, timeout: 1)
        defer { close(fd) }
        @Sendable func send(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            return Glibc.send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count
        }
        #expect(
            send(
                "POST /analytics/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
            ))
        // A byte each quarter second, well inside the 1 s idle timeout even when the sleep
        // overruns on a busy machine (each half second, it once ran past the timeout), on a
        // thread of its own so that tests beside it cannot hold it back.
        let (closed, took) = await onOwnThread { () -> (Bool, Duration) in
            let started = ContinuousClock.now
            while ContinuousClock.now - started < .seconds(15) {
                usleep(250_000)
                var byte: UInt8 = 0
                if recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0 || !send(" ") {
                    return (true, ContinuousClock.now - started)
                }
            }
            return (false, ContinuousClock.now - started)
        }
        #expect(closed, "the trickled body was kept for 15 s")
        #expect(took >= .seconds(3), "given up after \(took), before its deadline")
        #expect(try await HTTPTestClient(server).get("/health").status == 200)
        await server.stop()
    }

    /// A client that sends requests back to back and reads nothing gets the answers to the first
    /// `ConnectionGate.pipelinedAtMost`, the last saying `Connection: close`, and then the
    /// connection is closed. It had the server build answers until the socket's buffers were full.
    @Test func aClientThatPipelinesPastTheLimitIsAnsweredThatFarAndClosed() async throws {
        let server = try await ServerProcess.start()
        let fd = try RawHTTP.connect(port: server.port, timeout: 5)
        defer { close(fd) }
        try RawHTTP.write(fd, String(repeating: "GET /health HTTP/1.1\r\nHost: x\r\n\r\n", count: 200))
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        var closed = false
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 {
                closed = n == 0
                break
            }
            received.append(contentsOf: buffer[0..<n])
        }
        let text = String(decoding: received, as: UTF8.self)
        let answers = text.components(separatedBy: "HTTP/1.1 200").count - 1
        #expect(closed, "still open after \(answers) answers")
        #expect(answers == ConnectionGate.pipelinedAtMost)
        let last = text.components(separatedBy: "HTTP/1.1 200").last ?? ""
        #expect(last.lowercased().contains("connection: close"), "\(last)")
        #expect(try healthOnANewConnection(server.port).hasPrefix("HTTP/1.1 200"))
        await server.stop()
    }

    /// A client that asks for JSON answers far bigger than the socket's buffers and reads none of
    /// them has its connection reset four idle timeouts on (the kernel then drops what it held).
    /// One answer alone is handed to the kernel and the idle timeout closes its connection; with
    /// more asked for, the server waited to write the next one for as long as the client stayed,
    /// holding megabytes of memory, its own and the kernel's, and the connection never idled out.
    /// poll's POLLRDHUP (Linux), which Glibc's module leaves out.
    static let peerClosed: Int16 = 0x2000

    @Test func aClientThatReadsNoneOfItsBigJSONAnswersIsResetAfterFourIdleTimeouts() async throws {
        let dir = try TemporaryDirectory()
        let fixture = TourFixture(points: 5000, audioBytes: 0)
        let root = try fixture.write(in: dir.url, name: "tour")
        var options = ServerProcess.Options(tours: [root], logLevel: "notice")
        options.extraArguments = ["--idle-timeout", "1"]
        let server = try await ServerProcess.start(options)
        let path = "/tours/\(fixture.id)/points?language=en"
        let size = try RawHTTP.get(port: server.port, path).body.count
        #expect(size > 500_000, "the answer is \(size) bytes: not more than the buffers hold")
        let fd = try RawHTTP.connect(port: server.port, timeout: 5, receiveBuffer: 4096)
        defer { close(fd) }
        try RawHTTP.write(fd, String(repeating: "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n", count: 8))
        let started = ContinuousClock.now
        var reset = false
        while !reset, ContinuousClock.now - started < .seconds(15) {
            // Looked at without reading: a reset shows as an error or a hang-up on the socket.
            var watched = pollfd(fd: fd, events: Self.peerClosed, revents: 0)
            _ = poll(&watched, 1, 250)
            reset = watched.revents & (Int16(POLLERR | POLLHUP) | Self.peerClosed) != 0
        }
        let took = ContinuousClock.now - started
        #expect(reset, "still held after \(took)")
        #expect(took >= .seconds(3), "given up after \(took), before it had stalled")
        #expect(try healthOnANewConnection(server.port).hasPrefix("HTTP/1.1 200"))
        await server.stop()
        #expect(server.log.contains("took nothing of its answer for the stall timeout"), "\(server.log)")
    }

    @Test func aClientStallsOnlyWhenItTakesLessThanTheMinimumWithinTheLimit() {
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        var watch = StallWatch(limit: .seconds(2), since: start)
        var stalled = false
        // The first count is where it stands.
        stalled = watch.look(acknowledged: 1_000_000, now: start + .milliseconds(500))
        #expect(!stalled)
        // Less than the minimum in all, however many looks: past the limit, stalled.
        stalled = watch.look(acknowledged: 1_000_000 + 40_000, now: start + .seconds(1))
        #expect(!stalled)
        stalled = watch.look(acknowledged: 1_000_000 + 60_000, now: start + .milliseconds(2100))
        #expect(stalled)
        // The minimum taken: the limit counts from then.
        var steady = StallWatch(limit: .seconds(2), since: start)
        _ = steady.look(acknowledged: 0 + 1, now: start + .milliseconds(500))
        stalled = steady.look(acknowledged: 1 + StallWatch.minimumProgress, now: start + .seconds(2))
        #expect(!stalled)
        stalled = steady.look(acknowledged: 1 + StallWatch.minimumProgress, now: start + .seconds(3))
        #expect(!stalled)
        stalled = steady.look(acknowledged: 1 + StallWatch.minimumProgress, now: start + .milliseconds(4100))
        #expect(stalled)
        // Nothing known of what it acknowledged: only the time counts.
        var unknown = StallWatch(limit: .seconds(2), since: start)
        stalled = unknown.look(acknowledged: nil, now: start + .seconds(2))
        #expect(!stalled)
        stalled = unknown.look(acknowledged: nil, now: start + .milliseconds(2001))
        #expect(stalled)
    }

    /// A server of a tour whose points answer is more than a megabyte (5,000 points), with an idle
    /// timeout of 1 s (a stall limit of 4 s), and that answer's path.
    static func bigAnswers(in dir: TemporaryDirectory, more: [String] = []) async throws -> (
        server: ServerProcess, path: String
    ) {
        let fixture = TourFixture(points: 5000, audioBytes: 0)
        let root = try fixture.write(in: dir.url, name: "tour")
        var options = ServerProcess.Options(tours: [root], logLevel: "notice")
        options.extraArguments = ["--idle-timeout", "1"] + more
        return (try await ServerProcess.start(options), "/tours/\(fixture.id)/points?language=en")
    }

    /// The complete answers at the start of `bytes` (by their Content-Length), and whether the
    /// last of them said `Connection: close`.
    static func completeAnswers(_ bytes: Data) -> (count: Int, lastCloses: Bool) {
        var count = 0
        var lastCloses = false
        var at = bytes.startIndex
        while let end = bytes[at...].range(of: Data("\r\n\r\n".utf8)) {
            let head = String(decoding: bytes[at..<end.lowerBound], as: UTF8.self).lowercased()
            guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)),
                bytes.endIndex - end.upperBound >= length
            else { break }
            count += 1
            lastCloses = head.contains("connection: close")
            at = end.upperBound + length
        }
        return (count, lastCloses)
    }

    /// Past the pipelining limit, every answer owed is sent whole before the connection closes,
    /// also a big one to a client that reads at a steady pace and sends another request meanwhile:
    /// the close dropped what was still queued (the last answer cut at about a megabyte), and a
    /// request left unread made it a reset, which dropped the answers on their way.
    @Test func pastThePipeliningLimitEveryAnswerOwedArrivesWholeBeforeAnOrderlyClose() async throws {
        let dir = try TemporaryDirectory()
        let (server, path) = try await Self.bigAnswers(in: dir)
        let fd = try RawHTTP.connect(port: server.port, timeout: 10)
        defer { close(fd) }
        let request = "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n"
        try RawHTTP.write(fd, String(repeating: request, count: ConnectionGate.pipelinedAtMost + 1))
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        var ending = "timeout"
        var askedAgain = false
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n == 0 { ending = "end" }
            if n < 0 { ending = errno == ECONNRESET ? "reset" : "error \(errno)" }
            if n <= 0 { break }
            received.append(contentsOf: buffer[0..<n])
            if !askedAgain, received.count > 2_000_000 {
                try RawHTTP.write(fd, request)
                askedAgain = true
            }
            usleep(1000)
        }
        let answers = Self.completeAnswers(received)
        #expect(ending == "end")
        #expect(answers.count == ConnectionGate.pipelinedAtMost, "\(received.count) bytes received")
        #expect(answers.lastCloses)
        await server.stop()
    }

    /// All of a file, read to its end (`InputFile.contents`): Foundation's reading of a /proc
    /// file, whose size says 0, stopped after the first few kilobytes, and a busy machine lists
    /// more sockets than that.
    static func wholeFile(_ path: String) -> String {
        (try? InputFile.contents(of: path)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// The TCP sockets the kernel lists (`/proc/net/tcp` and `tcp6`): local and remote port, and
    /// state (`01`: established).
    static func tcpSockets() -> [(local: Int, remote: Int, state: Substring)] {
        let table = ["/proc/net/tcp", "/proc/net/tcp6"].map(Self.wholeFile).joined(separator: "\n")
        return table.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count > 3, let local = fields[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) }),
                let remote = fields[2].split(separator: ":").last.flatMap({ Int($0, radix: 16) })
            else { return nil }
            return (local, remote, fields[3])
        }
    }

    /// Whether the kernel still lists a TCP socket from port `local` to port `remote`.
    static func socketExists(local: Int, remote: Int) throws -> Bool {
        tcpSockets().contains { $0.local == local && $0.remote == remote }
    }

    /// An answer the kernel's buffers take whole, to a client that never reads: the idle timeout
    /// closes the connection, and the kernel then drops it too once the client has kept its window
    /// shut for the stall limit (the connection's TCP_USER_TIMEOUT). It kept the megabyte queued
    /// for as long as the client stayed (200 such clients of a 4 MB answer: 760 MB of its memory).
    @Test func anAnswerTheKernelTookWholeIsDroppedWhenItsClientNeverReads() async throws {
        let dir = try TemporaryDirectory()
        let (server, path) = try await Self.bigAnswers(in: dir)
        let fd = try RawHTTP.connect(port: server.port, timeout: 5, receiveBuffer: 4096)
        defer { close(fd) }
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let clientPort = Int(UInt16(bigEndian: address.sin_port))
        try RawHTTP.write(fd, "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
        try await Task.sleep(for: .milliseconds(500))
        let table = Self.wholeFile("/proc/net/tcp")
        let mine = table.split(separator: "\n").filter { $0.contains(String(clientPort, radix: 16, uppercase: true)) }
        #expect(
            try Self.socketExists(local: server.port, remote: clientPort),
            "no server socket seen at all: \(server.port) \(clientPort) \(mine)")
        let started = ContinuousClock.now
        var gone = false
        while !gone, ContinuousClock.now - started < .seconds(30) {
            try await Task.sleep(for: .milliseconds(250))
            gone = try !Self.socketExists(local: server.port, remote: clientPort)
        }
        #expect(gone, "the server's socket still holds the answer after 30 s")
        await server.stop()
    }

    /// The local ports of the established TCP connections to `port`.
    static func clientsOf(port: Int) -> [Int] {
        tcpSockets().filter { $0.remote == port && $0.state == "01" }.map(\.local)
    }

    /// Under TLS too, a client that takes nothing of its answers is reset at the stall limit. The
    /// reset's close went through the TLS layer, which first sends a close_notify and waits up to 5 s
    /// for the client's; the kernel's user timeout (one and a half stall limits) then dropped the
    /// connection without a word, and the client's side stayed open for as long as it liked.
    /// The client is `openssl s_client` writing what it reads into a pipe nobody reads.
    @Test func underTLSAClientThatTakesNothingIsResetNotLeftToTheKernel() async throws {
        let dir = try TemporaryDirectory()
        let (server, path) = try await Self.bigAnswers(
            in: dir, more: try TestCertificates.shared().good.serverArguments)
        let requests = dir.file("requests")
        try Data(String(repeating: "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n", count: 32).utf8).write(to: requests)
        let client = try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/setsid"),
            [
                "/bin/sh", "-c",
                "openssl s_client -connect 127.0.0.1:\(server.port) -quiet -ign_eof < '\(requests.path)' 2>/dev/null | sleep 60",
            ])
        defer { kill(-client.pid, SIGKILL) }
        var ports: [Int] = []
        let connecting = ContinuousClock.now
        while ports.isEmpty, ContinuousClock.now - connecting < .seconds(5) {
            try await Task.sleep(for: .milliseconds(50))
            ports = Self.clientsOf(port: server.port)
        }
        try #require(ports.count == 1, "the client's connection: \(ports)")
        let started = ContinuousClock.now
        var reset = false
        while !reset, ContinuousClock.now - started < .seconds(12) {
            try await Task.sleep(for: .milliseconds(100))
            reset = !Self.clientsOf(port: server.port).contains(ports[0])
        }
        let took = ContinuousClock.now - started
        #expect(reset, "the client's side still established after \(took)")
        #expect(took >= .seconds(3), "reset after \(took), before it had stalled")
        await server.stop()
        #expect(server.log.contains("took nothing of its answer for the stall timeout"), "\(server.log)")
    }

    /// The server's resident memory in bytes (`VmRSS` of /proc/PID/status).
    static func resident(_ pid: pid_t) throws -> Int {
        let status = String(decoding: try InputFile.contents(of: "/proc/\(pid)/status"), as: UTF8.self)
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    /// The memory a crowd of connections freed goes back to the system once they are gone: 1,000
    /// connections from four addresses, each with a request body under way, then closed. glibc kept
    /// it: the server's RSS stayed at its peak for as long as it ran (`MemoryReturn`).
    @Test func theMemoryACrowdOfConnectionsFreedIsGivenBackOnceTheyClose() async throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < 4096 {
            limit.rlim_cur = min(4096, limit.rlim_max)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        var options = ServerProcess.Options()
        options.logLevel = "info"
        let server = try await ServerProcess.start(options)
        #expect(try await HTTPTestClient(server).get("/health").status == 200)
        let before = try Self.resident(server.pid)
        let head =
            "POST /analytics/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + "Content-Length: 100000\r\n\r\n{\"events\":[" + String(repeating: " ", count: 30_000)
        var crowd: [Int32] = []
        defer { for fd in crowd { close(fd) } }
        for i in 0..<1000 {
            let low = try RawHTTP.connect(port: server.port, timeout: 5, from: "127.0.0.\(2 + i / 250)")
            // Kept above 2048: Foundation's Process (tests running beside this one spawn
            // commands) watches its pipes with select(), which aborts on a descriptor past 1023.
            let fd = fcntl(low, F_DUPFD_CLOEXEC, 2048)
            close(low)
            try #require(fd >= 2048)
            crowd.append(fd)
            try RawHTTP.write(fd, head)
        }
        // The bodies reach the server's buffers: until its RSS stops growing (at most 3 s).
        var peak = before
        var still = 0
        let arriving = ContinuousClock.now
        while ContinuousClock.now - arriving < .seconds(3), still < 3 || peak - before < 30 << 20 {
            try await Task.sleep(for: .milliseconds(100))
            let now = try Self.resident(server.pid)
            still = now > peak + (1 << 20) ? 0 : still + 1
            peak = max(peak, now)
        }
        try #require(peak - before >= 30 << 20, "the crowd took \((peak - before) >> 20) MiB, too little to tell")
        for fd in crowd { close(fd) }
        crowd = []
        var after = peak
        let closed = ContinuousClock.now
        while ContinuousClock.now - closed < .seconds(10), after - before > (peak - before) / 4 {
            try await Task.sleep(for: .milliseconds(250))
            after = try Self.resident(server.pid)
        }
        #expect(
            after - before <= (peak - before) / 4,
            "RSS \(before >> 20) MiB, \(peak >> 20) MiB with the crowd, \(after >> 20) MiB 10 s after it left")
        // The line is written after the trim it tells of: on a busy machine the RSS was seen down
        // before the line was in the log.
        let trimmed = ContinuousClock.now
        while !server.log.contains("gave freed memory back to the system"), ContinuousClock.now - trimmed < .seconds(5)
        {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(server.log.contains("gave freed memory back to the system"), "\(server.log)")
        #expect(try await HTTPTestClient(server).get("/health").status == 200)
        await server.stop()
    }

    /// When to trim: many connections gone since the last look, or the RSS grown since the last trim.
    @Test func aTrimFollowsACrowdLeavingOrGrowthNotEveryLook() {
        let rule = MemoryReturn.Rule(afterLastTrim: 100 << 20)
        #expect(rule.shouldTrim(peak: 1000, open: 10, resident: 100 << 20))
        #expect(!rule.shouldTrim(peak: 70, open: 10, resident: 100 << 20))
        #expect(rule.shouldTrim(peak: 5, open: 5, resident: 140 << 20))
        #expect(!rule.shouldTrim(peak: 5, open: 5, resident: 120 << 20))
        let counts = ConnectionCounts()
        for _ in 0..<100 { #expect(counts.admit("127.0.0.9")) }
        for _ in 0..<90 { counts.release("127.0.0.9") }
        #expect(counts.takePeak() == (100, 10))
        #expect(counts.takePeak() == (10, 10))
    }

    /// A flood of connections each breaking a rule logged a line each (1,430 lines in 5 s): one
    /// line of a kind goes every 10 s, and says how many were left out before it.
    @Test func aFloodOfNoticesIsOneLineEveryTenSecondsSayingHowManyWereLeftOut() {
        let notices = NoticeLimiter()
        let start = ContinuousClock.now
        #expect(notices.allow("stalled", now: start) == 0)
        for i in 1...99 { #expect(notices.allow("stalled", now: start + .milliseconds(i * 50)) == nil) }
        #expect(notices.allow("pipelined", now: start + .seconds(1)) == 0, "another kind waits for none")
        #expect(notices.allow("stalled", now: start + .seconds(10)) == 99)
        #expect(notices.allow("stalled", now: start + .seconds(21)) == 0)
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real gpsd reading a pseudo-terminal the test owns: the test writes NMEA into the pty's
/// master side as a receiver would, and clients connect to gpsd on an ephemeral loopback port.
///
/// gpsd runs as `gpsd -N -n -b -s 4800 -f 8N1 -S PORT -F SOCK /dev/pts/N` (foreground, no
/// waiting for clients, read-only, fixed speed so it never hunts for a baud rate). It can be
/// stopped and started again on the same port and pty, for reconnection tests; it is stopped
/// by PID in `stop()` and again in `deinit`, so a failing test does not leak it.
public final class GPSDHarness: @unchecked Sendable {
    public static var gpsdPath: String { which("gpsd")?.path ?? "/usr/sbin/gpsd" }
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: gpsdPath) }

    public let port: Int
    /// `/dev/pts/N`, the device gpsd reads.
    public let devicePath: String
    private let master: Int32
    /// Held open so the pty stays alive (and keeps what we write) while gpsd is down.
    private let slave: Int32
    private let directory: TemporaryDirectory
    private let lock = NSLock()
    /// gpsd's PID while it runs. Spawned and reaped here with posix_spawn/waitpid rather than
    /// Foundation's `Process`, whose `isRunning` lags the child's exit by seconds on Linux.
    private var process: pid_t?

    public enum Failure: Error, CustomStringConvertible {
        case pty(String)
        case gpsd(String)
        public var description: String {
            switch self {
            case .pty(let s): "pty: \(s)"
            case .gpsd(let s): "gpsd: \(s)"
            }
        }
    }

    /// Opens the pty and starts gpsd on it. `port` nil picks a free one.
    public init(port: Int? = nil) throws {
        directory = try TemporaryDirectory(prefix: "walkscape-gpsd")
        (master, slave) = try PseudoTerminal.open()
        devicePath = PseudoTerminal.name(of: master)
        // Raw 8N1 at 4800 baud, as a serial GPS would be configured.
        var attributes = termios()
        tcgetattr(slave, &attributes)
        cfmakeraw(&attributes)
        cfsetispeed(&attributes, speed_t(B4800))
        cfsetospeed(&attributes, speed_t(B4800))
        tcsetattr(slave, TCSANOW, &attributes)
        self.port = try port ?? Self.freePort()
        try start()
    }

    deinit {
        stop()
        close(slave)
        close(master)
    }

    public var isRunning: Bool { lock.withLock { process != nil && Self.alive(process!) } }
    public var pid: Int32? { lock.withLock { process } }

    /// Starts gpsd (if not running) and waits until it accepts connections.
    public func start(timeout: Double = 10) throws {
        try lock.withLock {
            if let pid = process, Self.alive(pid) { return }
            process = try Self.spawn(
                Self.gpsdPath,
                [
                    "-N", "-n", "-b", "-s", "4800", "-f", "8N1", "-S", String(port),
                    "-F", directory.file("gpsd.sock").path, devicePath,
                ])
        }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if isListening(port: port) { return }
            guard isRunning else { throw Failure.gpsd("exited during start-up") }
            usleep(20_000)
        }
        stop()
        throw Failure.gpsd("not accepting connections on port \(port) after \(timeout) s")
    }

    /// Stops gpsd by PID: SIGTERM, then SIGKILL if it lingers after 3 s; reaps it.
    public func stop() {
        guard
            let pid = lock.withLock({ () -> pid_t? in
                defer { process = nil }; return process
            })
        else { return }
        kill(pid, SIGTERM)
        kill(pid, SIGCONT)  // in case a test paused it
        let deadline = Date().addingTimeInterval(3)
        var status: Int32 = 0
        while Date() < deadline {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid || (r < 0 && errno == ECHILD) { return }
            usleep(5_000)
        }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
    }

    /// Whether `pid`, our child, is still running; reaps it if it has exited.
    private static func alive(_ pid: pid_t) -> Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
    }

    /// posix_spawn with stdin, stdout and stderr on /dev/null, default signal handling and an
    /// empty signal mask.
    private static func spawn(_ path: String, _ arguments: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        SpawnedDescriptors.closeTheRest(&actions)
        // The test process may block or ignore signals (runtimes do); gpsd must get SIGTERM.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        SpawnedSignals.reset(&attributes)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard result == 0 else { throw Failure.gpsd("cannot start \(path): \(String(cString: strerror(result)))") }
        return pid
    }

    /// Freezes gpsd (SIGSTOP): its port still accepts connections, but nothing answers,
    /// which is how a wedged gpsd or a dead network path looks to a client.
    public func pause() {
        if let pid { kill(pid, SIGSTOP) }
    }

    /// Lets a paused gpsd run again (SIGCONT).
    public func resume() {
        if let pid { kill(pid, SIGCONT) }
    }

    /// Stops gpsd and starts a new one on the same port and pty.
    public func restart() throws {
        stop()
        try start()
    }

    /// Writes raw bytes into the pty, as the receiver would send them.
    public func write(_ text: String) { write(bytes: Array(text.utf8)) }

    /// Writes bytes into the pty: a binary receiver's frames.
    public func write(bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { usleep(1000); continue }
                return
            }
            offset += n
        }
    }

    /// Writes each line with CRLF, waiting `interval` seconds after each group of `groupSize`
    /// lines (a receiver sends one epoch's sentences back to back, then waits).
    public func write(lines: [String], groupSize: Int = 1, interval: Double = 0) {
        for (i, line) in lines.enumerated() {
            write(line + "\r\n")
            if interval > 0, (i + 1) % max(1, groupSize) == 0 { usleep(useconds_t(interval * 1_000_000)) }
        }
    }

    /// Like `write(lines:groupSize:interval:)`, but waits with `Task.sleep`, so a test can
    /// play a receiver (`async let`) while it watches a client.
    public func play(lines: [String], groupSize: Int = 1, interval: Double) async {
        for (i, line) in lines.enumerated() {
            write(line + "\r\n")
            if (i + 1) % max(1, groupSize) == 0 { try? await Task.sleep(for: .seconds(interval)) }
        }
    }

    /// A loopback port nobody listens on right now.
    public static func freePort() throws -> Int { try freeTCPPort() }

}

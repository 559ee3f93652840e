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
    private var process: Process?

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
        master = PTY.posixOpenpt(O_RDWR | O_NOCTTY)
        guard master >= 0 else { throw Failure.pty("posix_openpt: \(String(cString: strerror(errno)))") }
        guard PTY.grantpt(master) == 0, PTY.unlockpt(master) == 0, let name = PTY.ptsname(master) else {
            close(master)
            throw Failure.pty("grantpt/unlockpt/ptsname: \(String(cString: strerror(errno)))")
        }
        devicePath = String(cString: name)
        slave = open(devicePath, O_RDWR | O_NOCTTY)
        guard slave >= 0 else {
            close(master)
            throw Failure.pty("open \(devicePath): \(String(cString: strerror(errno)))")
        }
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

    public var isRunning: Bool { lock.withLock { process?.isRunning ?? false } }
    public var pid: Int32? { lock.withLock { process?.processIdentifier } }

    /// Starts gpsd (if not running) and waits until it accepts connections.
    public func start(timeout: Double = 10) throws {
        try lock.withLock {
            if process?.isRunning == true { return }
            let p = Process()
            p.executableURL = URL(fileURLWithPath: Self.gpsdPath)
            p.arguments = ["-N", "-n", "-b", "-s", "4800", "-f", "8N1", "-S", String(port),
                           "-F", directory.file("gpsd.sock").path, devicePath]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            p.standardInput = FileHandle.nullDevice
            try p.run()
            process = p
        }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if Self.canConnect(port: port) { return }
            guard isRunning else { throw Failure.gpsd("exited during start-up") }
            usleep(20_000)
        }
        stop()
        throw Failure.gpsd("not accepting connections on port \(port) after \(timeout) s")
    }

    /// Stops gpsd by PID: SIGTERM, then SIGKILL if it lingers; waits for it.
    public func stop() {
        guard let p = lock.withLock({ () -> Process? in defer { process = nil }; return process }) else { return }
        guard p.isRunning else { return }
        kill(p.processIdentifier, SIGTERM)
        kill(p.processIdentifier, SIGCONT)  // in case a test paused it
        let deadline = Date().addingTimeInterval(3)
        while p.isRunning, Date() < deadline { usleep(10_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
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
    public func write(_ text: String) {
        let bytes = Array(text.utf8)
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

    /// A loopback port nobody listens on right now (bind to port 0, read it back, close).
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.gpsd("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw Failure.gpsd("bind: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// The pty functions of libc. Glibc's Swift module hides them (they are behind
/// `_XOPEN_SOURCE`), and this target has no C module of its own, so they are looked up once by
/// name in the process's own libc.
private enum PTY {
    typealias IntCall = @convention(c) (Int32) -> Int32
    typealias NameCall = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?

    static func symbol<T>(_ name: String, _ type: T.Type) -> T {
        guard let address = dlsym(nil, name) else { fatalError("libc has no \(name)") }
        return unsafeBitCast(address, to: type)
    }

    static let posixOpenpt = symbol("posix_openpt", IntCall.self)
    static let grantpt = symbol("grantpt", IntCall.self)
    static let unlockpt = symbol("unlockpt", IntCall.self)
    static let ptsname = symbol("ptsname", NameCall.self)
}

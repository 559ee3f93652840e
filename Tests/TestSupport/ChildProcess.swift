import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A long-running child (a `walkscape walk`, say) whose output a test watches while it runs,
/// signals, and waits for with a deadline. Output is read on a thread of its own so the child never
/// blocks on a full pipe. With `pty: true` the child's stdin and stdout are a pseudo-terminal, as
/// under a real terminal; `send(_:)` then types keys.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    private let lock = NSLock()
    private let collected = OutputBuffer()
    private let collectedErrors = OutputBuffer()
    private var exitStatus: Int32?
    private let outputFD: Int32
    /// The read end of the child's stderr when it is kept apart from stdout.
    private let errorFD: Int32?
    private let inputFD: Int32
    /// The child's side of the pty, kept open to read its terminal settings after exit.
    public let terminalFD: Int32?
    private let reader: Thread
    private let errorReader: Thread?

    /// With `separateErrorOutput`, stderr is collected apart (`errorOutput`) and `output` is stdout
    /// alone: for a child whose first line of stdout is an answer (a server's base URL) and whose
    /// stderr is a log.
    public init(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], pty: Bool = false,
        separateErrorOutput: Bool = false
    ) throws {
        var env = TestEnvironment.inherited
        for (k, v) in environment { env[k] = v }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var childIn: Int32, childOut: Int32
        if pty {
            let (master, slave) = try PseudoTerminal.open()
            childIn = slave; childOut = slave
            outputFD = master; inputFD = master
            terminalFD = slave
        } else {
            var inPipe: [Int32] = [0, 0], outPipe: [Int32] = [0, 0]
            pipe(&inPipe); pipe(&outPipe)
            childIn = inPipe[0]; childOut = outPipe[1]
            inputFD = inPipe[1]; outputFD = outPipe[0]
            terminalFD = nil
            posix_spawn_file_actions_addclose(&actions, inPipe[1])
            posix_spawn_file_actions_addclose(&actions, outPipe[0])
        }
        var childErr = childOut
        if separateErrorOutput {
            var errPipe: [Int32] = [0, 0]
            pipe(&errPipe)
            childErr = errPipe[1]
            errorFD = errPipe[0]
            posix_spawn_file_actions_addclose(&actions, errPipe[0])
        } else {
            errorFD = nil
        }
        posix_spawn_file_actions_adddup2(&actions, childIn, 0)
        posix_spawn_file_actions_adddup2(&actions, childOut, 1)
        posix_spawn_file_actions_adddup2(&actions, childErr, 2)
        SpawnedDescriptors.closeTheRest(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        SpawnedSignals.reset(&attributes)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        if !pty { close(childIn); close(childOut) }
        if childErr != childOut { close(childErr) }
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .ENOENT) }
        self.pid = pid
        let (out, errors) = (collected, collectedErrors)
        reader = Self.drain(outputFD, into: out)
        errorReader = errorFD.map { Self.drain($0, into: errors) }
    }

    /// Reads `fd` to its end on a thread of its own, which then closes it: only the reader may,
    /// for a descriptor closed under a reader about to read it again can be handed to a file or a
    /// socket opened meanwhile, whose bytes that reader would then take.
    private static func drain(_ fd: Int32, into sink: OutputBuffer) -> Thread {
        let thread = Thread {
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(fd, &chunk, chunk.count)
                if n > 0 {
                    sink.append(chunk[0..<n])
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    break  // EOF, or EIO once the pty's last writer is gone
                }
            }
            close(fd)
            sink.end()
        }
        thread.start()
        return thread
    }

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
        // The output descriptors are their readers' to close, at their end (`drain`); the pty's
        // master (input and output at once) too, once its last slave descriptor, closed here, is gone.
        if inputFD != outputFD { close(inputFD) }
        if let terminalFD { close(terminalFD) }
    }

    /// Everything the child has written so far (stdout alone with `separateErrorOutput`).
    public var output: String { collected.text }

    /// What the child wrote to stderr, with `separateErrorOutput` (else it is in `output`).
    public var errorOutput: String { collectedErrors.text }

    /// Types into the child's stdin.
    public func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(inputFD, $0.baseAddress!, $0.count) }
    }

    public func signal(_ number: Int32) { kill(pid, number) }

    /// Waits until the output contains `text`; false on timeout or if the child exits first.
    /// Sleeps with `Task.sleep`, so a waiting test never holds a thread of the cooperative pool.
    @discardableResult
    public func waitForOutput(_ text: String, timeout: Double = 20) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if output.contains(text) { return true }
            if !isRunning {
                await drained()
                return output.contains(text)
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    /// Whether this child listens on the loopback `port` within `timeout` seconds: false once it
    /// has exited, or at the end. For the daemons tests start on a free port.
    public func listens(on port: Int, within timeout: Double = 5) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        while ContinuousClock.now < deadline {
            if isListening(port: port) { return true }
            guard isRunning else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return isListening(port: port)
    }

    public var isRunning: Bool {
        lock.withLock {
            if exitStatus != nil { return false }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { exitStatus = status; return false }
            return true
        }
    }

    /// Waits for the child to exit; its exit code (128 + signal when killed), or nil on timeout.
    public func wait(timeout: Double = 30) async -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if !isRunning {
                await drained()
                return Self.code(lock.withLock { exitStatus! })
            }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }

    /// Once the child has exited: waits (50 ms at most) for the readers to reach the end of what it
    /// wrote. A pipe's reader sees EOF when the last writer is gone, usually within a millisecond; a
    /// grandchild still holding the pipe takes the whole 50 ms. A pty (whose child side this
    /// process keeps open, so its reader never sees EOF) is read until nothing is left in it and
    /// nothing more came for 50 ms (5 s at most): a fixed 50 ms left a doctor's whole output
    /// unread on a machine busy with the suite and a triggering pass beside it (it saw "").
    private func drained() async {
        if terminalFD != nil {
            let deadline = Date().addingTimeInterval(5)
            var seen = -1
            var quietSince = Date()
            while Date() < deadline {
                var pending: Int32 = 0
                let unread = ioctl(outputFD, UInt(FIONREAD), &pending) == 0 ? pending : 0
                let count = collected.count
                if unread > 0 || count != seen {
                    seen = count
                    quietSince = Date()
                } else if Date().timeIntervalSince(quietSince) >= 0.05 {
                    return
                }
                try? await Task.sleep(for: .milliseconds(1))
            }
            return
        }
        let deadline = Date().addingTimeInterval(0.05)
        while Date() < deadline {
            if terminalFD == nil, collected.ended, errorFD == nil || collectedErrors.ended { return }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    static func code(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}

final class OutputBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var finished = false
    func append(_ bytes: ArraySlice<UInt8>) { lock.withLock { data.append(contentsOf: bytes) } }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
    /// Bytes appended so far.
    var count: Int { lock.withLock { data.count } }
    /// Marks the end of the input: everything read has been appended.
    func end() { lock.withLock { finished = true } }
    /// Whether the reader reached the end of its input.
    var ended: Bool { lock.withLock { finished } }
}

/// openpty(3) without libutil: the pty calls are looked up in libc by name (Glibc's Swift module
/// hides them behind _XOPEN_SOURCE).
public enum PseudoTerminal {
    typealias IntCall = @convention(c) (Int32) -> Int32
    typealias NameCall = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?

    static func symbol<T>(_ name: String, _ type: T.Type) -> T? {
        dlsym(nil, name).map { unsafeBitCast($0, to: type) }
    }

    /// The `/dev/pts/N` path of a master's other side.
    public static func name(of master: Int32) -> String {
        symbol("ptsname", NameCall.self).flatMap { $0(master) }.map { String(cString: $0) } ?? ""
    }

    /// A master/slave pair with an 80x24 window.
    public static func open() throws -> (master: Int32, slave: Int32) {
        guard let openpt = symbol("posix_openpt", IntCall.self), let grant = symbol("grantpt", IntCall.self),
            let unlock = symbol("unlockpt", IntCall.self), let name = symbol("ptsname", NameCall.self)
        else {
            throw POSIXError(.ENOSYS)
        }
        let master = openpt(O_RDWR | O_NOCTTY)
        guard master >= 0, grant(master) == 0, unlock(master) == 0, let path = name(master) else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        let slave = Glibc.open(path, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var size = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(slave, UInt(TIOCSWINSZ), &size)
        return (master, slave)
    }
}

import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The result of running a command to completion.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var stdoutData: Data
    /// True when the command outlived the `timeout` it was given and was killed.
    public var timedOut = false
}

public enum TestPaths {
    /// The folder the test bundle was built into; the `walkscape` executable sits beside it.
    public static var buildProducts: URL {
        if let override = ProcessInfo.processInfo.environment["WALKSCAPE_BUILD_DIR"] {
            return URL(fileURLWithPath: override, isDirectory: true)
        }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        // swift-testing on Linux runs `<products>/walkscapePackageTests.xctest`.
        while !url.path.isEmpty, url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("walkscape").path) {
                return url
            }
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    public static var walkscape: URL { buildProducts.appendingPathComponent("walkscape") }

    /// The local API server, built beside `walkscape`.
    public static var walkscapeServer: URL { buildProducts.appendingPathComponent("walkscape-server") }

    /// The bundled demo tour folder.
    public static var demoTour: URL { packageRoot.appendingPathComponent("tours/demo", isDirectory: true) }

    /// The package root (for `tours/demo`, `Tests/Fixtures`).
    public static var packageRoot: URL {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // Tests/TestSupport/Subprocess.swift
        return url
    }

    /// `Tests/Fixtures`: data the tests read, with its licences (the gpsd receiver corpus).
    public static var fixtures: URL { packageRoot.appendingPathComponent("Tests/Fixtures", isDirectory: true) }

    /// The version of debian/changelog's first entry without its Debian revision (`0.2.0` of
    /// `walkscape (0.2.0-1) unstable`): the one place the programs' version comes from.
    public static var changelogVersion: String {
        let changelog =
            (try? String(contentsOf: packageRoot.appendingPathComponent("debian/changelog"), encoding: .utf8)) ?? ""
        let first = changelog.split(separator: "\n").first ?? ""
        guard let open = first.firstIndex(of: "("), let close = first.firstIndex(of: ")") else { return "" }
        let full = first[first.index(after: open)..<close]
        return String(full.split(separator: "-").dropLast().joined(separator: "-"))
    }

    /// Whether `line` is `PROGRAM VERSION (commit C)` with this tree's changelog version and a
    /// commit of this clone that HEAD descends from (12 hex digits): the build's own commit, or
    /// an older one when a commit was made since the build.
    public static func isVersionLine(_ line: String, program: String) throws -> Bool {
        let prefix = "\(program) \(changelogVersion) (commit "
        guard line.hasPrefix(prefix), line.hasSuffix(")") else { return false }
        let commit = String(line.dropFirst(prefix.count).dropLast())
        guard commit.count == 12, commit.allSatisfy(\.isHexDigit) else { return false }
        let ancestor = try run(
            URL(fileURLWithPath: "/usr/bin/git"),
            ["-C", packageRoot.path, "merge-base", "--is-ancestor", commit, "HEAD"])
        return ancestor.status == 0
    }
}

/// Finds an executable on PATH (and in the sbin folders, where gpsd lives).
public func which(_ name: String) -> URL? {
    let path = (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":/usr/sbin:/sbin:/usr/local/sbin"
    for dir in path.split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(dir)).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
}

/// What a child started by a test inherits: this process's environment without its proxies (a
/// developer's or a CI machine's `https_proxy` would send the tests' requests through it, and
/// 0.0.0.0 or a `.invalid` host is not loopback); a test that wants one names it.
public enum TestEnvironment {
    public static let proxyVariables = [
        "http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
    ]

    public static var inherited: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in proxyVariables { environment[name] = nil }
        return environment
    }
}

/// How long `run` lets a child go on when the test gives no `timeout`: far beyond any command the
/// suite runs (the slowest take a few seconds), so only a hang reaches it, and it then fails that
/// test, saying so in `stderr`, instead of holding the whole suite until CI's limit.
public let hangLimit: Double = 600

/// Runs `executable` with `arguments`, feeding `stdin`, and waits for it.
/// Output is drained concurrently so a chatty child never blocks on a full pipe.
/// A child still running after `timeout` seconds (`hangLimit` when none is given) is killed and
/// the result says `timedOut`: a test of something that used to hang fails instead of hanging the suite.
/// `status` is the exit code, or 128 + the signal that ended the child (as a shell says it).
///
/// Spawned with posix_spawn, not Foundation's `Process`: that watches its children through
/// select(), which aborts the whole test process on a descriptor past 1023, and tests running
/// beside this one may hold a thousand sockets.
public func run(
    _ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
    stdin: Data? = nil, currentDirectory: URL? = nil, timeout: Double? = nil
) throws -> ProcessResult {
    var env = TestEnvironment.inherited
    if let environment { env.merge(environment) { _, new in new } }
    // Close-on-exec: a child spawned at the same moment by another test keeps none of these (the
    // dup2 onto 0, 1 and 2 below clears the flag on the child's own copies).
    var input: [Int32] = [-1, -1], output: [Int32] = [-1, -1], errors: [Int32] = [-1, -1]
    guard pipe(&input) == 0, pipe(&output) == 0, pipe(&errors) == 0 else {
        let reason = String(cString: strerror(errno))
        for fd in input + output + errors where fd >= 0 { close(fd) }
        throw SubprocessError(description: "cannot make pipes for \(executable.lastPathComponent): \(reason)")
    }
    for fd in input + output + errors { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, input[0], 0)
    posix_spawn_file_actions_adddup2(&actions, output[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
    SpawnedDescriptors.closeTheRest(&actions)
    if let currentDirectory { SpawnedDescriptors.changeDirectory(&actions, to: currentDirectory.path) }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // A process group of its own: the watchdog ends the child and whatever it started, which
    // could otherwise hold its output open and the test waiting.
    posix_spawnattr_setpgroup(&attributes, 0)
    SpawnedSignals.reset(&attributes, flags: Int32(POSIX_SPAWN_SETPGROUP))
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
    close(input[0])
    close(output[1])
    close(errors[1])
    guard rc == 0 else {
        close(input[1])
        close(output[0])
        close(errors[0])
        throw SubprocessError(
            description: "cannot run \(executable.path): \(String(cString: strerror(rc)))")
    }
    let group = DispatchGroup()
    // Each written by its reader alone, and read after `group.wait()`.
    nonisolated(unsafe) var outData = Data()
    nonisolated(unsafe) var errData = Data()
    let (outputEnd, errorEnd) = (output[0], errors[0])
    DispatchQueue.global().async(group: group) {
        outData = readToEnd(outputEnd)
        close(outputEnd)
    }
    DispatchQueue.global().async(group: group) {
        errData = readToEnd(errorEnd)
        close(errorEnd)
    }
    // A watchdog on another thread kills a child still running at the limit, counted from its
    // start. The child is waited for without being reaped first, so the watchdog never signals a
    // PID (or group) already handed to another process.
    let limit = timeout ?? hangLimit
    let state = Mutex((exited: false, killed: false))
    let watchdog = DispatchWorkItem {
        state.withLock { state in
            guard !state.exited else { return }
            kill(-pid, SIGKILL)
            state.killed = true
        }
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: watchdog)
    // The input is written beside the wait: a child that never reads it is still timed.
    let inputEnd = input[1]
    if let stdin {
        // A child that exits without reading its input must not end the test process by SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        DispatchQueue.global().async(group: group) {
            stdin.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let n = write(inputEnd, buffer.baseAddress! + offset, buffer.count - offset)
                    if n > 0 {
                        offset += n
                    } else if n < 0 && errno == EINTR {
                        continue
                    } else {
                        break
                    }
                }
            }
            close(inputEnd)
        }
    } else {
        close(inputEnd)
    }
    var info = siginfo_t()
    while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
    let timedOut = state.withLock { state in
        state.exited = true
        return state.killed
    }
    watchdog.cancel()
    // Something the child started may still hold its output open: ended with it, after a moment.
    if group.wait(timeout: .now() + 10) == .timedOut {
        kill(-pid, SIGKILL)
        group.wait()
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let out = outData
    var stderr = String(decoding: errData, as: UTF8.self)
    if timedOut, timeout == nil {
        stderr += "\n[test harness: \(executable.lastPathComponent) killed, still running after \(Int(limit)) s]\n"
    }
    return ProcessResult(
        status: ChildProcess.code(status), stdout: String(decoding: out, as: UTF8.self),
        stderr: stderr, stdoutData: out, timedOut: timedOut)
}

/// Everything `fd` gives until its end.
private func readToEnd(_ fd: Int32) -> Data {
    var data = Data()
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = read(fd, &chunk, chunk.count)
        if n > 0 {
            data.append(contentsOf: chunk[0..<n])
        } else if n < 0 && errno == EINTR {
            continue
        } else {
            return data
        }
    }
}

public struct SubprocessError: Error, CustomStringConvertible {
    public var description: String
}

/// Runs the built `walkscape` with a private home so no test touches the user's files.
public func runWalkscape(
    _ arguments: [String], home: TemporaryDirectory? = nil,
    environment: [String: String] = [:], stdin: Data? = nil,
    timeout: Double? = nil
) throws -> ProcessResult {
    var env = environment
    if let home { env["WALKSCAPE_HOME"] = home.path }
    env["NO_COLOR"] = env["NO_COLOR"] ?? "1"
    // A developer's DO_NOT_TRACK=1 must not change what the tests see; a test sets it to test it.
    env["DO_NOT_TRACK"] = env["DO_NOT_TRACK"] ?? ""
    return try run(
        TestPaths.walkscape, arguments, environment: env, stdin: stdin,
        currentDirectory: TestPaths.packageRoot, timeout: timeout)
}

/// The signals a child spawned by a test starts with: none blocked, and every one at its default
/// action, whatever the test process set aside (runtimes block some; a test may ignore SIGPIPE or
/// trap SIGUSR2): a child must end on SIGTERM, and a shell's pipes must break as usual.
enum SpawnedSignals {
    /// Sets the mask and the defaults on `attributes`, with `flags` besides.
    static func reset(_ attributes: inout posix_spawnattr_t, flags: Int32 = 0) {
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) | flags))
    }
}

/// The descriptors a child spawned by a test keeps: 0, 1 and 2 alone. Without it a child inherits
/// every descriptor the test process has open at that moment that is not close-on-exec, among
/// them those of children started at the same time: their output pipes (a server that held one
/// kept its neighbour's output open, and the test reading it waiting, until the server ended).
enum SpawnedDescriptors {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), which Swift's Glibc module does
    /// not show (it is a GNU extension).
    private static let closeFrom: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: CloseFrom.self)
    }

    /// Adds the action that closes every descriptor from 3 up; after the `dup2`s onto 0, 1 and 2.
    static func closeTheRest(_ actions: inout posix_spawn_file_actions_t) {
        if let closeFrom { _ = closeFrom(&actions, 3) }
    }

    typealias ChangeDirectory =
        @convention(c) (
            UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>
        ) -> Int32

    /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29), a GNU extension too.
    private static let addChangeDirectory: ChangeDirectory? = dlsym(nil, "posix_spawn_file_actions_addchdir_np").map {
        unsafeBitCast($0, to: ChangeDirectory.self)
    }

    /// Adds the action that makes `path` the child's working folder.
    static func changeDirectory(_ actions: inout posix_spawn_file_actions_t, to path: String) {
        guard let addChangeDirectory else { preconditionFailure("glibc has no posix_spawn_file_actions_addchdir_np") }
        _ = addChangeDirectory(&actions, path)
    }
}

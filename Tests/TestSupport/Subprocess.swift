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
public func run(
    _ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
    stdin: Data? = nil, currentDirectory: URL? = nil, timeout: Double? = nil
) throws -> ProcessResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment {
        process.environment = TestEnvironment.inherited.merging(environment) { _, new in new }
    }
    if let currentDirectory { process.currentDirectoryURL = currentDirectory }
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    try process.run()
    let group = DispatchGroup()
    nonisolated(unsafe) var outData = Data()
    nonisolated(unsafe) var errData = Data()
    DispatchQueue.global().async(group: group) { outData = out.fileHandleForReading.readDataToEndOfFile() }
    DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
    if let stdin { input.fileHandleForWriting.write(stdin) }
    try? input.fileHandleForWriting.close()
    // A watchdog on another thread kills a child still running at the limit; the wait itself is
    // the usual one (no polling).
    let limit = timeout ?? hangLimit
    let pid = process.processIdentifier
    let killed = Mutex(false)
    let watchdog = DispatchWorkItem { [process] in
        killed.withLock { killed in
            guard process.isRunning else { return }
            kill(pid, SIGKILL)
            killed = true
        }
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: watchdog)
    process.waitUntilExit()
    watchdog.cancel()
    let timedOut = killed.withLock { $0 }
    group.wait()
    var stderr = String(decoding: errData, as: UTF8.self)
    if timedOut, timeout == nil {
        stderr += "\n[test harness: \(executable.lastPathComponent) killed, still running after \(Int(limit)) s]\n"
    }
    return ProcessResult(
        status: process.terminationStatus,
        stdout: String(decoding: outData, as: UTF8.self),
        stderr: stderr, stdoutData: outData, timedOut: timedOut)
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

/// The descriptors a child spawned by a test keeps: 0, 1 and 2 alone. Without it a child inherits
/// every descriptor the test process has open at that moment that is not close-on-exec, among
/// them those of children `run()` starts at the same time: their output pipes, and the socket by
/// whose closing Foundation's `Process` learns that its child ended. A server that held one kept
/// `waitUntilExit` waiting (its child a zombie) until the server ended, and with both of the
/// cooperative pool's threads waiting so, the whole suite stopped.
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
}

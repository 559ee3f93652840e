import Foundation
import TestSupport
import Testing
import TourAPI
import TourModel

/// One walker at a terminal, against a real `walkscape-server`: a private home, the real binary,
/// and every line it ever printed kept, so a test can prove no token was ever shown.
final class ServiceWalker: @unchecked Sendable {
    let home: TemporaryDirectory
    let server: ServerProcess
    private let lock = NSLock()
    private var printed: [String] = []
    private var tokensSeen: Set<String> = []

    init(_ server: ServerProcess, home: TemporaryDirectory? = nil) throws {
        self.server = server
        self.home = try home ?? TemporaryDirectory()
    }

    var credentialsURL: URL { home.file("config/credentials.json") }

    /// `walkscape ARGS` against the server; output kept, tokens of the saved session noted.
    @discardableResult
    func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> ProcessResult {
        var env = environment
        env["WALKSCAPE_API_URL"] = env["WALKSCAPE_API_URL"] ?? server.baseURL
        let result = try runWalkscape(arguments, home: home, environment: env, stdin: stdin.map { Data($0.utf8) })
        noteTokens()
        lock.withLock { printed += [result.stdout, result.stderr] }
        return result
    }

    /// Runs the commands at the same time, each in a process of its own (threads, not the
    /// cooperative pool, so they really overlap).
    func runConcurrently(_ commands: [[String]]) async -> [Result<ProcessResult, any Error>] {
        await withCheckedContinuation { continuation in
            let results = ResultSlots(count: commands.count)
            let group = DispatchGroup()
            for (index, command) in commands.enumerated() {
                group.enter()
                Thread {
                    results.set(index, Result { try self.run(command) })
                    group.leave()
                }.start()
            }
            group.notify(queue: .global()) { continuation.resume(returning: results.all) }
        }
    }

    func register(_ email: String, password: String, extra: [String] = []) throws -> ProcessResult {
        try run(["register", "--email", email, "--password-stdin"] + extra, stdin: password + "\n")
    }

    func login(_ email: String, password: String) throws -> ProcessResult {
        try run(["login", "--email", email, "--password-stdin"], stdin: password + "\n")
    }

    var credentials: Credentials? {
        guard let data = FileManager.default.contents(atPath: credentialsURL.path) else { return nil }
        return try? WalkscapeJSON.decoder().decode(Credentials.self, from: data)
    }

    func noteTokens() {
        guard let tokens = credentials?.tokens else { return }
        lock.withLock {
            tokensSeen.insert(tokens.accessToken)
            if let refresh = tokens.refreshToken { tokensSeen.insert(refresh) }
        }
    }

    /// Everything printed, and the tokens of every session this walker held.
    var transcript: [String] { lock.withLock { printed } }
    var tokens: Set<String> { lock.withLock { tokensSeen } }

    /// No token, nor its signature alone, appears in anything walkscape printed.
    func expectNoTokenPrinted(sourceLocation: SourceLocation = #_sourceLocation) {
        let tokens = self.tokens
        #expect(!tokens.isEmpty, "no session was ever saved", sourceLocation: sourceLocation)
        for text in transcript {
            for token in tokens {
                let signature = String(token.split(separator: ".").last ?? "")
                #expect(
                    !text.contains(token) && (signature.count < 16 || !text.contains(signature)),
                    "a token was printed: \(text)", sourceLocation: sourceLocation)
            }
        }
    }
}

/// One slot per concurrent command, filled from its own thread.
final class ResultSlots: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Result<ProcessResult, any Error>?]
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ result: Result<ProcessResult, any Error>) { lock.withLock { slots[index] = result } }
    var all: [Result<ProcessResult, any Error>] { lock.withLock { slots.map { $0! } } }
}

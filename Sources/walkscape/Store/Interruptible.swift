import ArgumentParser
import Foundation
import WalkscapeKit

/// Runs a download-like piece of work that Ctrl-C (or SIGTERM, SIGHUP, SIGQUIT) stops cleanly:
/// the work is cancelled, transfers stop at a chunk boundary with their part files kept, and the
/// command exits 128 + the signal after `onStop` has said how to resume.
enum Interruptible {
    static func run<T: Sendable>(
        onStop: @escaping @Sendable () -> Void,
        _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let task = Task { try await work() }
        let signals = SignalTrap(handler: { _ in task.cancel() })
        defer { signals.cancel() }
        do {
            // A signal that came after the switch committed changes nothing: the work is done.
            return try await task.value
        } catch {
            if let signal = signals.caught {
                onStop()
                throw ExitCode(128 + signal)
            }
            throw error
        }
    }
}

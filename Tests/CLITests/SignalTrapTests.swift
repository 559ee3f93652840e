import Foundation
import Testing
import WalkscapeKit

@testable import walkscape

/// Serialized: both tests set the whole process's disposition of SIGUSR2, and the default one
/// ends the process.
@Suite("Signal trap", .serialized)
struct SignalTrapTests {
    /// A signal that arrives the moment the trap is set is caught, never ignored and lost: the
    /// walk's first line printed, then `kill` from a script, must still end the walk cleanly.
    @Test func aSignalRightAfterTheTrapIsSetIsCaught() async throws {
        for _ in 0..<50 {
            let (caught, sink) = AsyncStream.makeStream(of: Int32.self)
            let trap = SignalTrap(signals: [SIGUSR2], handler: { sink.yield($0) })
            kill(getpid(), SIGUSR2)
            let first = await withTaskGroup(of: Int32?.self) { group in
                group.addTask { await caught.first { _ in true } }
                group.addTask {
                    try? await Task.sleep(for: .seconds(2)); return nil
                }
                let answer = await group.next() ?? nil
                group.cancelAll()
                return answer
            }
            trap.cancel()
            #expect(first == SIGUSR2)
            #expect(trap.caught == SIGUSR2)
            if first != SIGUSR2 { break }
        }
    }

    /// Cancelling puts back what the signal did before (here: ignored), so a later signal does
    /// not reach a trap that is gone.
    @Test func cancellingRestoresTheSignalsEarlierAction() throws {
        let before = signal(SIGUSR2, SIG_IGN)
        defer { signal(SIGUSR2, before) }
        let trap = SignalTrap(signals: [SIGUSR2], handler: { _ in })
        trap.cancel()
        trap.cancel()
        var now = sigaction()
        sigaction(SIGUSR2, nil, &now)
        #expect(unsafeBitCast(now.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self))
    }
}

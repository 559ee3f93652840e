import Dispatch
import Foundation
import WalkscapeKit

#if canImport(Glibc)
    import Glibc
#endif

/// Ctrl-Z during a live walk on a terminal. Left to the default, the process would stop with the
/// terminal as the walk set it (no echo, the alternate screen, no cursor): the walker's shell
/// would come back unusable, and after `fg` the walk's keys would need Enter. Instead the terminal
/// is given back first (`onSuspend`), then the process stops for real (SIGTSTP's default action),
/// and when `fg` continues it the terminal is taken again and the screen redrawn (`onResume`).
/// Without job control (an orphaned process group) the kernel does not stop the process and the
/// walk simply goes on. The walk's clock and queue are untouched: a narration that was playing
/// goes on from where the sound device is.
///
/// Same mechanism as `SignalTrap`: the handler only writes into a `SignalPipe`.
final class Suspension: @unchecked Sendable {
    nonisolated(unsafe) private static var pipeWriteEnd: Int32 = -1

    private var pipe: SignalPipe!
    private var previous = sigaction()
    private var installed = false
    private let lock = NSLock()

    init(onSuspend: @escaping @Sendable () -> Void, onResume: @escaping @Sendable () -> Void) {
        pipe = SignalPipe { [weak self] _ in
            guard let self else { return }
            onSuspend()
            self.stopUntilContinued()
            onResume()
        }
        Self.pipeWriteEnd = pipe.writeEnd
        guard pipe.writeEnd >= 0 else { return }
        var action = Self.catching()
        if sigaction(SIGTSTP, &action, &previous) == 0 { installed = true }
    }

    private static func catching() -> sigaction {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            var byte: UInt8 = 1
            _ = write(Suspension.pipeWriteEnd, &byte, 1)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        return action
    }

    /// SIGTSTP with its default action, delivered to this thread (unblocked here: dispatch's
    /// threads may block signals), so the process stops before `raise` returns; then caught again.
    private func stopUntilContinued() {
        lock.lock(); defer { lock.unlock() }
        guard installed else { return }
        var stop = sigaction()
        stop.__sigaction_handler.sa_handler = SIG_DFL
        sigemptyset(&stop.sa_mask)
        sigaction(SIGTSTP, &stop, nil)
        var unblock = sigset_t(), old = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGTSTP)
        pthread_sigmask(SIG_UNBLOCK, &unblock, &old)
        raise(SIGTSTP)
        pthread_sigmask(SIG_SETMASK, &old, nil)
        var action = Self.catching()
        sigaction(SIGTSTP, &action, nil)
    }

    /// Stops catching Ctrl-Z and puts back what it did before.
    func cancel() {
        lock.lock()
        if installed {
            sigaction(SIGTSTP, &previous, nil)
            installed = false
        }
        lock.unlock()
        pipe.close()
    }
}

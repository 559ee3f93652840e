import Dispatch
import Foundation
import WalkscapeKit

#if canImport(Glibc)
    import Glibc
#endif

/// Turns the signals that end a command (Ctrl-C, `kill`, a closed terminal, Ctrl-\) into a call
/// instead of death, so the walk can record the abandonment, save, and give the terminal back
/// before exiting, and a preview can stop where it is. One mechanism for every such signal.
///
/// The first signal calls `handler`; the command is expected to wind down and exit with
/// 128 + `caught`. A second one means the walker will not wait (a sound device that hangs on
/// close, say): `onRepeat` runs and the process exits with 128 + that signal at once.
/// The signals are caught even when the command was started with them ignored (from a script's
/// `trap '' INT`), because the walk's terminal and progress must be looked after either way.
///
/// The handler is installed with `sigaction` and only writes the signal's number into a pipe
/// (all a signal handler may safely do); a dispatch source reads the pipe. A dispatch *signal*
/// source would need the signal ignored first, and it registers asynchronously after `resume()`:
/// a signal arriving in between was ignored and lost (a walk told to stop right after it printed
/// its first line went on walking). A byte in a pipe waits until it is read.
final class SignalTrap: @unchecked Sendable {
    /// Everything that ends a walk or a preview by default.
    static let ending: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    /// Where the installed handler writes; one trap is installed at a time.
    nonisolated(unsafe) private static var pipeWriteEnd: Int32 = -1

    private var pipe: SignalPipe!
    private var previous: [(signal: Int32, action: sigaction)] = []
    private let lock = NSLock()
    private var caughtSignal: Int32?
    private var cancelled = false

    init(
        signals: [Int32] = SignalTrap.ending, handler: @escaping @Sendable (Int32) -> Void,
        onRepeat: @escaping @Sendable (Int32) -> Void = { _ in }
    ) {
        pipe = SignalPipe { [weak self] numbers in
            guard let self else { return }
            for number in numbers { self.deliver(Int32(number), handler: handler, onRepeat: onRepeat) }
        }
        Self.pipeWriteEnd = pipe.writeEnd
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(SignalTrap.pipeWriteEnd, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            var old = sigaction()
            if sigaction(number, &action, &old) == 0 { previous.append((number, old)) }
        }
    }

    private func deliver(_ number: Int32, handler: @Sendable (Int32) -> Void, onRepeat: @Sendable (Int32) -> Void) {
        let first = lock.withLock { () -> Bool in
            defer { if caughtSignal == nil { caughtSignal = number } }
            return caughtSignal == nil
        }
        if first {
            handler(number)
        } else {
            onRepeat(number)
            exit(128 + number)
        }
    }

    /// The first signal caught, if any.
    var caught: Int32? { lock.withLock { caughtSignal } }

    /// Stops catching and puts back what each signal did before.
    func cancel() {
        guard
            !lock.withLock({
                defer { cancelled = true }; return cancelled
            })
        else { return }
        for (number, action) in previous {
            var action = action
            sigaction(number, &action, nil)
        }
        previous = []
        pipe.close()
    }
}

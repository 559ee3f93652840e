import Dispatch
import Foundation

/// Turns the signals that end a command (Ctrl-C, `kill`, a closed terminal, Ctrl-\) into a call
/// instead of death, so the walk can record the abandonment, save, and give the terminal back
/// before exiting, and a preview can stop where it is. One mechanism for every such signal.
///
/// The first signal calls `handler`; the command is expected to wind down and exit with
/// 128 + `caught`. A second one means the walker will not wait (a sound device that hangs on
/// close, say): `onRepeat` runs and the process exits with 128 + that signal at once.
/// The signals are caught even when the command was started with them ignored (from a script's
/// `trap '' INT`), because the walk's terminal and progress must be looked after either way.
final class SignalTrap: @unchecked Sendable {
    /// Everything that ends a walk or a preview by default.
    static let ending: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    private var sources: [any DispatchSourceSignal] = []
    private var previous: [(signal: Int32, handler: __sighandler_t?)] = []
    private let lock = NSLock()
    private var caughtSignal: Int32?

    init(signals: [Int32] = SignalTrap.ending, handler: @escaping @Sendable (Int32) -> Void,
         onRepeat: @escaping @Sendable (Int32) -> Void = { _ in }) {
        for number in signals {
            // Ignored for the default action; the dispatch source still sees every delivery.
            previous.append((number, signal(number, SIG_IGN)))
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in
                guard let self else { return }
                let first = self.lock.withLock { () -> Bool in
                    defer { if self.caughtSignal == nil { self.caughtSignal = number } }
                    return self.caughtSignal == nil
                }
                if first {
                    handler(number)
                } else {
                    onRepeat(number)
                    exit(128 + number)
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The first signal caught, if any.
    var caught: Int32? { lock.withLock { caughtSignal } }

    /// Stops catching, and gives each signal back the disposition it had (so a command that
    /// trapped Ctrl-C for a moment, around a password prompt, can be interrupted again).
    func cancel() {
        sources.forEach { $0.cancel() }
        sources = []
        for (number, handler) in previous { signal(number, handler) }
        previous = []
    }
}

import Dispatch
import Foundation

/// Turns SIGINT/SIGTERM into a call instead of death, so the walk can record the abandonment,
/// save, and give the terminal back before exiting.
final class SignalTrap: @unchecked Sendable {
    private var sources: [any DispatchSourceSignal] = []
    private var previous: [(Int32, sighandler_t?)] = []
    private let lock = NSLock()
    private var caughtSignal: Int32?

    init(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        for number in signals {
            previous.append((number, signal(number, SIG_IGN)))
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in
                self?.lock.withLock { self?.caughtSignal = number }
                handler(number)
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

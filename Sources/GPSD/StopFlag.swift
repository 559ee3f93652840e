import Positioning
import Synchronization

/// Set once, from the consumer's side, to end the worker thread.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .releasing) }
    var isSet: Bool { flag.load(ordering: .acquiring) }
}

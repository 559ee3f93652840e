import Foundation

/// Runs `body` on a thread of its own and waits for it without holding one of the cooperative
/// pool's threads (one per core): a loop that must keep real time (a client reading every 25 ms)
/// is then not starved by tests beside it that hold both of the pool's threads while they wait on
/// their children. (At three tests at a time a slow client's loop, run on the pool, read 62 kB in
/// 3.5 s where it reads a megabyte, and the server rightly gave it up.)
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

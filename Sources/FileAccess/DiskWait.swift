import Foundation

/// Runs work that waits for the disk (a flush, a durable commit) on a thread of its own. Tasks
/// share the few threads of Swift's pool, one per core: a flush held there for milliseconds stops
/// every other task on that thread (a download's transfers, hashing and writing) for as long.
public enum DiskWait {
    private static let queue = DispatchQueue(label: "walkscape.disk-wait", attributes: .concurrent)

    public static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Result { () throws(E) in try body() }) }
        }
        return try result.get()
    }
}

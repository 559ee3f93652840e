import Dispatch
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import WalkscapeServer

/// bcrypt does not share the threads media files are read on (`NIOThreadPool.singleton`): with
/// every one of those busy, a password is still hashed. A flood of logins queued every download's
/// next chunk behind its hashes.
struct PasswordHasherTests {
    @Test func aPasswordIsHashedWhileTheMediaReadersAreAllBusy() async throws {
        let release = DispatchSemaphore(value: 0)
        let busy = (0..<System.coreCount).map { _ in
            NIOThreadPool.singleton.runIfActive(eventLoop: MultiThreadedEventLoopGroup.singleton.next()) {
                release.wait()
            }
        }
        let done = Atomic<Bool>(false)
        let hashing = Task {
            let hash = try await PasswordHasher(cost: 4).hash("correct horse battery")
            done.store(true, ordering: .relaxed)
            return hash
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while !done.load(ordering: .relaxed), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let hashedWhileBusy = done.load(ordering: .relaxed)
        for _ in busy { release.signal() }
        for job in busy { try await job.get() }
        #expect(hashedWhileBusy, "the hash waited for the media readers' threads")
        #expect(try await hashing.value.hasPrefix("$2"))
    }
}

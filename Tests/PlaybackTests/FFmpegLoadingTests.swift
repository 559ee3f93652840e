import Foundation
import Playback
import Synchronization
import Testing

/// FFmpeg's libraries are opened at their first use. A download judges several narrations at once,
/// so that first use can come from several threads together: each must find the libraries, not
/// conclude from another thread's load in progress that they are missing. (Meaningful when this
/// process has not opened them yet: run alone, `--filter FFmpegLoadingTests`, it is the first use.)
@Suite struct FFmpegLoadingTests {
    @Test func theFirstUseFromManyThreadsAtOnceFindsTheLibrariesOnEveryThread() {
        let found = Mutex<[Bool]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let available = FFmpegLibraries.available
            found.withLock { $0.append(available) }
        }
        #expect(found.withLock { $0 } == Array(repeating: true, count: 8))
    }
}

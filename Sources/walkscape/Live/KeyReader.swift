import Foundation
import Walk
import WalkscapeKit

#if canImport(Glibc)
    import Glibc
#endif

/// Turns key presses on standard input into walk keys.
///
/// Reading blocks, so it happens on its own thread; the walk consumes `keys` at its own pace.
final class KeyReader: Sendable {
    let keys: AsyncStream<WalkKey>
    private let continuation: AsyncStream<WalkKey>.Continuation

    init(fd: Int32 = STDIN_FILENO) {
        (keys, continuation) = AsyncStream.makeStream(of: WalkKey.self)
        let continuation = self.continuation
        let thread = Thread {
            var byte: UInt8 = 0
            while true {
                let n = read(fd, &byte, 1)
                if n == 1 {
                    if let key = WalkKey.decode(byte) { continuation.yield(key) }
                } else if n < 0, errno == EINTR {
                    continue
                } else {
                    break  // end of input: no more keys, the walk goes on by GPS alone
                }
            }
            continuation.finish()
        }
        thread.name = "walkscape-keys"
        thread.start()
    }

    func finish() { continuation.finish() }
}

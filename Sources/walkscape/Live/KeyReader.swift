import Foundation
import Walk
#if canImport(Glibc)
import Glibc
#endif

/// Turns key presses on standard input into walk commands.
///
/// Reading blocks, so it happens on its own thread; the walk consumes `keys` at its own pace.
/// `q` asks to confirm before quitting, so a pocketed keyboard does not end a walk.
enum WalkKey: Sendable, Hashable {
    case command(WalkCommand)
    case togglePause
    case askQuit
    case confirm
    case cancel
    case help

    static func decode(_ byte: UInt8) -> WalkKey? {
        switch byte {
        case UInt8(ascii: " "): .togglePause
        case UInt8(ascii: "n"), UInt8(ascii: "N"): .command(.skip)
        case UInt8(ascii: "p"), UInt8(ascii: "P"): .command(.previous)
        case UInt8(ascii: "r"), UInt8(ascii: "R"): .command(.replay)
        case UInt8(ascii: "q"), UInt8(ascii: "Q"): .askQuit
        case UInt8(ascii: "y"), UInt8(ascii: "Y"): .confirm
        case 27, UInt8(ascii: "c"), UInt8(ascii: "C"): .cancel  // Esc
        case UInt8(ascii: "?"), UInt8(ascii: "h"), UInt8(ascii: "H"): .help
        default: nil
        }
    }
}

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

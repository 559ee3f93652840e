import Dispatch
import Foundation
import WalkscapeKit

#if canImport(Glibc)
    import Glibc
#endif

/// The pipe a signal handler writes into and a dispatch source reads: a write(2) is all a handler
/// may safely do, and a byte in a pipe waits until it is read (a signal arriving before anyone
/// listens is not lost). Both ends are non-blocking and closed on exec.
final class SignalPipe: @unchecked Sendable {
    /// Where the handler writes; -1 when no pipe could be made (the handler's write then fails
    /// harmlessly and the signal is not acted on).
    let writeEnd: Int32
    private let readEnd: Int32
    private let reader: any DispatchSourceRead

    /// `received` gets the bytes read, on a dispatch queue.
    init(received: @escaping @Sendable ([UInt8]) -> Void) {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            }
        } else {
            ends = [-1, -1]
        }
        readEnd = ends[0]
        writeEnd = ends[1]
        reader = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: .global())
        let readEnd = readEnd
        reader.setEventHandler {
            var bytes = [UInt8](repeating: 0, count: 16)
            let count = read(readEnd, &bytes, bytes.count)
            if count > 0 { received(Array(bytes.prefix(count))) }
        }
        reader.resume()
    }

    /// Stops reading and closes both ends (once the source has let go of them).
    func close() {
        let (readEnd, writeEnd) = (readEnd, writeEnd)
        reader.setCancelHandler {
            if readEnd >= 0 { Glibc.close(readEnd) }
            if writeEnd >= 0 { Glibc.close(writeEnd) }
        }
        reader.cancel()
    }
}

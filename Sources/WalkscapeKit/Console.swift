import FileAccess
import Foundation
import Synchronization
import TourModel

#if canImport(Glibc)
    import Glibc
#endif

/// Where commands print: standard output and standard error, unbuffered (a line shows when it
/// happens, even through a pipe), and always through `TerminalText`, so text from a tour or a
/// trace reaches the terminal as text. A write that fails (a full disk under `> log`, a terminal
/// gone after a hangup) does not stop the command where it is: standard output's first failure is
/// kept (`outputLost`) and the command then ends with it as its error, so `> backup.json` on a full
/// disk is not an empty file and success. A reader that went away (`| head`, EPIPE) is no failure.
package enum Console {
    private static let lost = Mutex<String?>(nil)

    /// Why standard output lost text, if it did.
    package static var outputLost: String? { lost.withLock { $0 } }

    /// Writes `text` and a newline (or `terminator`) to standard output.
    package static func out(_ text: String, terminator: String = "\n") {
        write(Data((TerminalText.sanitized(text) + terminator).utf8), to: .standardOutput)
    }

    /// Writes `text` and a newline to standard error.
    package static func err(_ text: String) {
        write(Data((TerminalText.sanitized(text) + "\n").utf8), to: .standardError)
    }

    /// Writes `text` and a newline to standard error or standard output.
    package static func say(_ text: String, toStandardError: Bool) {
        toStandardError ? err(text) : out(text)
    }

    /// Writes `text` and a newline to standard output as it is: for text whose outside parts the
    /// caller has passed through `TerminalText` and whose escape sequences are walkscape's own
    /// colours (doctor's report).
    package static func outPainted(_ text: String) {
        write(Data((text + "\n").utf8), to: .standardOutput)
    }

    /// Writes encoded JSON and a newline to standard output.
    package static func json(_ data: Data) {
        write(TerminalText.sanitizedJSON(data) + Data("\n".utf8), to: .standardOutput)
    }

    /// Writes part of a JSON document to standard output, with no newline.
    package static func jsonPart(_ data: Data) {
        write(TerminalText.sanitizedJSON(data), to: .standardOutput)
    }

    /// Writes lines to standard output as one write.
    package static func outLines(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        write(Data(lines.map { TerminalText.sanitized($0) + "\n" }.joined().utf8), to: .standardOutput)
    }

    private static func write(_ data: Data, to handle: FileHandle) {
        let fd = handle.fileDescriptor
        let failure: Int32 = data.withUnsafeBytes { raw in
            var done = 0
            while true {
                let outcome = Descriptor.writeAll(fd, UnsafeRawBufferPointer(rebasing: raw[done...]))
                done += outcome.written
                // A non-blocking descriptor that is full for now: wait until it takes more.
                guard outcome.error == EAGAIN else { return outcome.error }
                var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, 1000)
            }
        }
        guard failure != 0, fd == STDOUT_FILENO, failure != EPIPE else { return }
        lost.withLock { $0 = $0 ?? FileAccessError(path: "", errno: failure).reason }
    }
}

import Foundation
import TourModel

/// Where commands print: standard output and standard error, unbuffered (a line shows when it
/// happens, even through a pipe), and always through `TerminalText`, so text from a tour or a
/// trace reaches the terminal as text. A write that fails (a full disk under `> log`, a terminal
/// gone after a hangup) loses that text, never the command: `FileHandle.write(_:)` would trap.
package enum Console {
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
        try? handle.write(contentsOf: data)
    }
}

import FileAccess
import Foundation
import WalkscapeKit

#if canImport(Glibc)
    import Glibc
#endif

/// Owns the terminal while a live walk runs: raw keys (no echo, no line buffering), the alternate
/// screen, a hidden cursor. Everything is put back on `restore()`: when the walk ends, however it
/// ends (every ending signal goes through `SignalTrap`, a second one restores at once), so a
/// walker never gets back a shell that does not echo.
final class TerminalSession: @unchecked Sendable {
    private let input: Int32
    private let output: Int32
    private var saved = termios()
    private var active = false
    private let lock = NSLock()

    init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        self.input = input
        self.output = output
    }

    /// True when both ends are terminals that can draw a screen (TERM not dumb): only then is
    /// there a screen to draw and keys to read. Otherwise the walk prints plain log lines.
    static var isInteractive: Bool {
        isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 && Terminal.hasEscapeSequences()
    }

    func enter() {
        lock.lock(); defer { lock.unlock() }
        guard !active, tcgetattr(input, &saved) == 0 else { return }
        var raw = saved
        // Keys arrive one by one and unechoed; ISIG stays on so Ctrl-C still raises SIGINT.
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(input, TCSAFLUSH, &raw)
        write("\u{1B}[?1049h\u{1B}[?25l")  // alternate screen, hide cursor
        active = true
    }

    func restore() {
        lock.lock(); defer { lock.unlock() }
        guard active else { return }
        write("\u{1B}[?25h\u{1B}[?1049l")  // show cursor, main screen
        tcsetattr(input, TCSAFLUSH, &saved)
        active = false
    }

    /// Redraws the whole status area from the top left.
    func draw(_ lines: [String]) {
        var frame = "\u{1B}[H"
        for line in lines { frame += line + "\u{1B}[K\r\n" }
        frame += "\u{1B}[J"
        write(frame)
    }

    /// Terminal width in columns (80 when it cannot be asked).
    var width: Int {
        var size = winsize()
        if ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 {
            return columns
        }
        return 80
    }

    private func write(_ text: String) {
        _ = Descriptor.writeAll(output, text.utf8)
    }
}

import Foundation

/// Terminal conventions shared by the commands that print.
package enum Terminal {
    /// Colour only on a terminal that can show it: stdout a TTY, TERM set and not `dumb` (the
    /// terminfo name of a terminal without escape sequences: Emacs shells, some serial consoles),
    /// and never when NO_COLOR is set (https://no-color.org). Every coloured output asks here.
    package static var useColor: Bool {
        useColor(isTTY: isatty(STDOUT_FILENO) == 1, environment: ProcessInfo.processInfo.environment)
    }

    package static func useColor(isTTY: Bool, environment: [String: String]) -> Bool {
        guard isTTY, (environment["NO_COLOR"] ?? "").isEmpty else { return false }
        return hasEscapeSequences(environment: environment)
    }

    /// True when TERM names a terminal that understands escape sequences (colour, moving the
    /// cursor, the alternate screen): set, and not `dumb`.
    package static func hasEscapeSequences(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool
    {
        guard let term = environment["TERM"], !term.isEmpty, term != "dumb" else { return false }
        return true
    }
}

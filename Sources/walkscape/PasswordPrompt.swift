import Foundation
import WalkscapeKit

#if canImport(Glibc)
    import Glibc
#endif

/// How account commands get an email and a password: asked on the terminal (the password without
/// echo), or read from stdin with --password-stdin. There is never a password flag: it would sit
/// in the shell history and in `ps` for everyone to read.
enum PasswordPrompt {
    static var isTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// A line typed on the terminal, echoed.
    static func askLine(_ prompt: String) throws(AppError) -> String {
        try? FileHandle.standardError.write(contentsOf: Data(prompt.utf8))
        guard let line = readLine(strippingNewline: true) else { throw AppError.usage("no answer to '\(prompt)'") }
        return line.trimmingCharacters(in: .whitespaces)
    }

    /// A password typed on the terminal without echo. The terminal is put back however the prompt
    /// ends, Ctrl-C and kill included.
    static func askSecret(_ prompt: String) throws(AppError) -> String {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
            throw AppError.usage("no terminal to ask for the password: pipe it with --password-stdin")
        }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        let restore = saved
        let trap = SignalTrap(signals: [SIGINT, SIGTERM, SIGHUP]) { number in
            var original = restore
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
            try? FileHandle.standardError.write(contentsOf: Data("\n".utf8))
            exit(128 + number)
        }
        defer { trap.cancel() }
        try? FileHandle.standardError.write(contentsOf: Data(prompt.utf8))
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        let line = readLine(strippingNewline: true)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        guard let line else { throw AppError.usage("no password given") }
        return line
    }

    /// The first line of stdin (for --password-stdin): what `echo "$PW" | walkscape login` sends.
    static func readStandardInput() throws(AppError) -> String {
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw AppError.usage("--password-stdin: no password on standard input")
        }
        return line.hasSuffix("\r") ? String(line.dropLast()) : line
    }

    /// The email: the flag, else asked on the terminal.
    static func email(_ flag: String?) throws(AppError) -> String {
        if let flag { return flag.trimmingCharacters(in: .whitespaces) }
        guard isTerminal else { throw AppError.usage("no terminal to ask for the email: pass --email") }
        let email = try askLine("Email: ")
        guard !email.isEmpty else { throw AppError.usage("no email given") }
        return email
    }

    /// The password: from stdin when asked to, else without echo on the terminal (twice when
    /// `confirm`, so a typo does not lock the user out of a new account).
    static func password(fromStandardInput: Bool, confirm: Bool) throws(AppError) -> String {
        if fromStandardInput { return try readStandardInput() }
        guard isTerminal else {
            throw AppError.usage("no terminal to ask for the password: pipe it with --password-stdin")
        }
        let password = try askSecret("Password: ")
        guard !password.isEmpty else { throw AppError.usage("no password given") }
        if confirm, try askSecret("Password again: ") != password {
            throw AppError.usage("the two passwords differ")
        }
        return password
    }
}

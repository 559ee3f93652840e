import ArgumentParser
import WalkscapeKit

extension AppError {
    /// The exit code of the error's kind (sysexits(3); README.md has the table).
    var exitCode: ExitCode {
        switch kind {
        case .usage: ExitCode(64)
        case .data: ExitCode(65)
        case .notFound: ExitCode(66)
        case .unavailable: ExitCode(69)
        case .alreadyExists: ExitCode(73)
        case .temporary: ExitCode(75)
        case .protocolError: ExitCode(76)
        case .noPermission: ExitCode(77)
        case .failure: ExitCode(1)
        }
    }
}

import Foundation
import TourModel

package struct DoctorReport: Encodable {
    package init(version: String, checks: [DoctorCheck] = []) {
        self.version = version
        self.checks = checks
    }

    package var version: String
    package var checks: [DoctorCheck] = []
    package var ok: Bool { !checks.contains { $0.status == .fail } }

    package enum CodingKeys: String, CodingKey { case version, ok, checks }
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(version, forKey: .version)
        try c.encode(ok, forKey: .ok)
        try c.encode(checks, forKey: .checks)
    }

    package func text(color: Bool) -> String {
        var lines = ["walkscape \(version)"]
        let width = checks.map(\.name.count).max() ?? 0
        for check in checks {
            let label = check.status.rawValue.uppercased().padding(toLength: 4, withPad: " ", startingAt: 0)
            let painted = color ? "\u{1B}[\(check.status.colorCode)m\(label)\u{1B}[0m" : label
            // Details and hints quote settings, paths and the service's words: terminal text, so
            // that the only escape sequences printed are the status colours.
            var line =
                "\(painted) \(check.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(TerminalText.sanitized(check.detail))"
            if let hint = check.hint {
                line += "\n     \(String(repeating: " ", count: width))  hint: \(TerminalText.sanitized(hint))"
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}

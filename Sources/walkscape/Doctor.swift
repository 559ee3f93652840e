import ArgumentParser
import Foundation
import Playback
import Positioning

struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check gpsd, audio, storage and the API configuration.",
        discussion: """
        One line per check: OK, WARN or FAIL, with a hint for anything not OK.
        Exits 0 when nothing FAILs.

        Examples:
          walkscape doctor
          walkscape doctor --gpsd-host 192.168.1.20 --audio-device hw:1 --json
        """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("ALSA playback device to check (env: WALKSCAPE_AUDIO_DEVICE).", valueName: "name"))
    var audioDevice: String?

    @Flag(name: .long, help: "Print the checks as JSON.")
    var json = false

    func run() async throws {
        let settings = try global.settings()
        var report = DoctorReport(version: Walkscape.version)
        let device = audioDevice ?? settings.audioDevice
        report.checks = DoctorChecks(settings: settings, audioDevice: device).all()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            FileHandle.standardOutput.write(try encoder.encode(report))
            FileHandle.standardOutput.write(Data("\n".utf8))
        } else {
            print(report.text(color: Terminal.useColor))
        }
        if !report.ok { throw ExitCode(1) }
    }
}

struct DoctorReport: Encodable {
    var version: String
    var checks: [DoctorCheck] = []
    var ok: Bool { !checks.contains { $0.status == .fail } }

    enum CodingKeys: String, CodingKey { case version, ok, checks }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(version, forKey: .version)
        try c.encode(ok, forKey: .ok)
        try c.encode(checks, forKey: .checks)
    }

    func text(color: Bool) -> String {
        var lines = ["walkscape \(version)"]
        let width = checks.map(\.name.count).max() ?? 0
        for check in checks {
            let label = check.status.rawValue.uppercased().padding(toLength: 4, withPad: " ", startingAt: 0)
            let painted = color ? "\u{1B}[\(check.status.colorCode)m\(label)\u{1B}[0m" : label
            var line = "\(painted) \(check.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(check.detail)"
            if let hint = check.hint { line += "\n     \(String(repeating: " ", count: width))  hint: \(hint)" }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}

struct DoctorCheck: Encodable, Sendable {
    enum Status: String, Encodable, Sendable {
        case ok, warn, fail
        var colorCode: String { self == .ok ? "32" : self == .warn ? "33" : "31" }
    }
    var name: String
    var status: Status
    var detail: String
    var hint: String?
}

/// Terminal conventions shared by the commands that print.
enum Terminal {
    /// Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org).
    static var useColor: Bool {
        isatty(STDOUT_FILENO) == 1 && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
    }
}

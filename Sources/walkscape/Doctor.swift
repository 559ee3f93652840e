import ArgumentParser
import Foundation
import WalkscapeKit

struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check gpsd, audio, storage, the API and the login.",
        discussion: """
            One line per check: OK, WARN or FAIL, with a hint for anything not OK.
            Exits 0 when nothing FAILs.

            Examples:
              walkscape doctor
              walkscape doctor --gpsd-host 192.168.1.20 --audio-device hw:1 --json
            """)

    @OptionGroup var global: GlobalOptions

    @Option(
        name: .long,
        help: ArgumentHelp("ALSA playback device to check (env: WALKSCAPE_AUDIO_DEVICE).", valueName: "name"))
    var audioDevice: String?

    @Flag(name: .long, help: "Print the checks as JSON.")
    var json = false

    func run() async throws {
        // A broken setting is one of doctor's findings, never a reason not to check the rest.
        let (settings, fileProblem) = global.settingsReportingFileProblem()
        var report = DoctorReport(version: Walkscape.version)
        let device = audioDevice ?? settings.audioDevice
        report.checks = await DoctorChecks(settings: settings, audioDevice: device, fileProblem: fileProblem).all()
        if json {
            try JSONOutput.write(report)
        } else {
            Console.outPainted(report.text(color: Terminal.useColor))
        }
        if !report.ok { throw ExitCode(1) }
    }
}

import ArgumentParser
import Foundation
import WalkscapeKit

@main
struct Walkscape: AsyncParsableCommand {
    static let version = WalkscapeVersion.current

    static let configuration = CommandConfiguration(
        commandName: "walkscape",
        abstract: "Play GPS-triggered audio walks from the Sonic Walkscape service or a tour folder.",
        discussion: """
            Examples:
              walkscape doctor
              walkscape preview tours/demo --trace tours/demo/traces/walk.nmea --fast
              walkscape login --api-url https://api.example.org
              walkscape tours -l it
              walkscape redeem SPRING-2026
              walkscape download bologna-portici -l it
              walkscape walk bologna-portici

            Exit codes: 0 done, 1 failure, 64 usage, 65 bad data or refused input, 66 not found, \
            69 unavailable, 73 already exists, 75 temporary (try again), 76 unexpected answer, \
            77 not logged in or not allowed.
            """,
        version: VersionReport.first,
        subcommands: [
            Doctor.self,
            PreviewCommand.self,
            LintCommand.self,
            MapCommand.self,
            PlayCommand.self,
            WalkTourCommand.self,
            TraceCommand.self,
            RegisterCommand.self,
            LoginCommand.self,
            LogoutCommand.self,
            WhoamiCommand.self,
            ToursCommand.self,
            ShowCommand.self,
            RedeemCommand.self,
            MyToursCommand.self,
            DownloadCommand.self,
            UpdateCommand.self,
            RemoveCommand.self,
            VerifyCommand.self,
            GCCommand.self,
            SyncCommand.self,
            AnalyticsCommand.self,
        ]
    )

    /// Our own errors print as one line with their own exit code; ArgumentParser handles the rest
    /// (help, usage errors). Nothing prints a stack trace.
    static func main() async {
        // A file size limit (or a quota) must fail a write with EFBIG, which every writer here
        // reports and the walk survives, not kill the process with SIGXFSZ.
        signal(SIGXFSZ, SIG_IGN)
        AnalyticsAfterCommand.commandStarts()
        var command: (any ParsableCommand)?
        do {
            // The version, the commit and the libraries this binary runs with, not just a number.
            if Array(CommandLine.arguments.dropFirst()) == ["--version"] {
                print(VersionReport.lines.joined(separator: "\n"))
                return
            }
            try checkHelpTopic(Array(CommandLine.arguments.dropFirst()))
            var parsed = try parseAsRoot()
            command = parsed
            if var asyncCommand = parsed as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try parsed.run()
            }
            await AnalyticsAfterCommand.deliver(command)
            // What the command printed did not all reach standard output (a full disk, /dev/full).
            if let reason = Console.outputLost {
                Console.err("walkscape: cannot write the output (\(reason))")
                Foundation.exit(1)
            }
        } catch let error as AppError {
            Console.err("walkscape: \(error.message)")
            // A download that failed halfway still recorded that it started.
            await AnalyticsAfterCommand.deliver(command)
            Foundation.exit(error.exitCode.rawValue)
        } catch {
            exit(withError: error)
        }
    }

    /// `walkscape help NAME...` must name commands: ArgumentParser's own help quietly shows the
    /// top-level help for a name it does not know, and exits 0 as if it had answered.
    static func checkHelpTopic(_ arguments: [String]) throws(AppError) {
        guard arguments.first == "help" else { return }
        var path: [String] = []
        var subcommands = configuration.subcommands
        for name in arguments.dropFirst() where !name.hasPrefix("-") {
            let names = subcommands.map { $0._commandName }
            guard
                let index = subcommands.indices.first(where: {
                    names[$0] == name || subcommands[$0].configuration.aliases.contains(name)
                })
            else {
                let whose = path.isEmpty ? "" : " in \(path.joined(separator: " "))"
                throw AppError.usage(
                    names.isEmpty
                        ? "\(path.joined(separator: " ")) has no subcommands (no help for '\(name)')"
                        : "no command '\(name)'\(whose) (commands: \(names.joined(separator: ", ")))")
            }
            path.append(names[index])
            subcommands = subcommands[index].configuration.subcommands
        }
    }
}

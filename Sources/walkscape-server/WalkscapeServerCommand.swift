import ArgumentParser
import BuildInfo
import Foundation
import WalkscapeServer

@main
struct WalkscapeServerCommand: AsyncParsableCommand {
    static let version = BuildInfo.version

    static let configuration = CommandConfiguration(
        commandName: "walkscape-server",
        abstract:
            "Serve tour folders with the Sonic Walkscape API: accounts, vouchers, signed media, analytics, faults.",
        discussion: """
            Examples:
              walkscape-server tours/                      serve every tour folder under tours/ on 127.0.0.1:8080
              walkscape-server tours/demo --port 0         pick a free port; the base URL is the first line of stdout
              walkscape-server tours/ --host 0.0.0.0 --public-url http://192.168.1.20:8080
              walkscape-server user add walker@example.org --password 'correct horse'
              walkscape-server voucher add FLORENCE24 --tour 3b6f7a0e-2c55-4c1e-8f4a-7d2f5e0c9a10 --max-uses 10
              walkscape-server events --json
            """,
        version: BuildInfo.line(program: "walkscape-server"),
        subcommands: [ServeCommand.self, UserCommand.self, VoucherCommand.self, EventsCommand.self, StatsCommand.self],
        defaultSubcommand: ServeCommand.self
    )

    /// Our own errors print as one line with their own exit code; ArgumentParser handles the rest.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ServerError {
            FileHandle.standardError.write(Data("walkscape-server: \(error.message)\n".utf8))
            Foundation.exit(error.exitCode)
        } catch {
            exit(withError: error)
        }
    }
}

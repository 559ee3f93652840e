import ArgumentParser

@main
struct Walkscape: AsyncParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "walkscape",
        abstract: "Play GPS-triggered audio walks from the Sonic Walkscape service or a tour folder.",
        discussion: """
        Examples:
          walkscape doctor
          walkscape preview tours/demo --trace tours/demo/traces/walk.nmea --fast
        """,
        version: "walkscape \(version)",
        subcommands: [
            Doctor.self,
        ]
    )
}

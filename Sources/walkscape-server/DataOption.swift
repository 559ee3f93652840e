import ArgumentParser
import Foundation

/// `--data DIR`, shared by the server and the admin commands that write the same folder.
struct DataOption: ParsableArguments {
    @Option(
        name: .customLong("data"),
        help: ArgumentHelp(
            "The server's data folder: users, vouchers, grants, events, signing secret.",
            discussion:
                "Default: $WALKSCAPE_SERVER_DATA, else $XDG_DATA_HOME/walkscape-server (~/.local/share/walkscape-server).",
            valueName: "dir"))
    var path: String?

    var url: URL {
        if let path { return URL(fileURLWithPath: path, isDirectory: true) }
        let env = ProcessInfo.processInfo.environment
        if let dir = env["WALKSCAPE_SERVER_DATA"], !dir.isEmpty { return URL(fileURLWithPath: dir, isDirectory: true) }
        let base =
            env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true)
        return base.appendingPathComponent("walkscape-server", isDirectory: true)
    }
}

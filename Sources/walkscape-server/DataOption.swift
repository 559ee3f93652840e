import ArgumentParser
import Foundation
import WalkscapeServer

/// `--config FILE` and `--data DIR`, shared by the server and the admin commands that write the
/// same folder: an operator gives the admin commands the file the service runs with.
struct DataOption: ParsableArguments {
    @Option(
        name: .customLong("config"),
        help: ArgumentHelp(
            "A settings file of key = value lines (walkscape-config(7)); flags win over it.",
            valueName: "file"))
    var configPath: String?

    @Option(
        name: .customLong("data"),
        help: ArgumentHelp(
            "The server's data folder: users, vouchers, grants, events, signing secret.",
            discussion:
                "Default: $WALKSCAPE_SERVER_DATA, else the config file's data, else $XDG_DATA_HOME/walkscape-server (~/.local/share/walkscape-server).",
            valueName: "dir"))
    var path: String?

    /// The settings file named by --config, if any.
    func configFile() throws(ServerError) -> ServerConfigFile? {
        try configPath.map { path throws(ServerError) in try ServerConfigFile.load(path) }
    }

    /// The data folder: the flag, else $WALKSCAPE_SERVER_DATA, else the file's, else the XDG default.
    func directory(_ file: ServerConfigFile?) -> URL {
        if let path { return URL(fileURLWithPath: path, isDirectory: true) }
        let env = ProcessInfo.processInfo.environment
        if let dir = env["WALKSCAPE_SERVER_DATA"], !dir.isEmpty { return URL(fileURLWithPath: dir, isDirectory: true) }
        if let dir = file?["data"] { return URL(fileURLWithPath: dir, isDirectory: true) }
        let base =
            env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true)
        return base.appendingPathComponent("walkscape-server", isDirectory: true)
    }

    /// The data folder of an admin command.
    func directory() throws(ServerError) -> URL { directory(try configFile()) }
}

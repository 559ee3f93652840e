import Foundation
import PackagePlugin

/// Writes the version (from debian/changelog, its one place) and the commit into the BuildInfo
/// module before every build; the file is rewritten only when one of them changed, so an unchanged
/// tree compiles nothing again.
@main
struct BuildInfoPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let root = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("generated", isDirectory: true)
        return [
            .prebuildCommand(
                displayName: "Writing the version and commit into BuildInfo",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [
                    root.appendingPathComponent("scripts/build-info.sh").path,
                    root.path,
                    output.appendingPathComponent("BuildInfoValues.swift").path,
                ],
                outputFilesDirectory: output)
        ]
    }
}

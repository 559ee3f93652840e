import ArgumentParser
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import TestSupport
import WalkscapeServer

@testable import walkscape_server

/// The server's routes in-process, through Hummingbird's testing library: no socket, no process,
/// the configuration parsed from the same flags as `walkscape-server serve`. For what the routes
/// answer; what only a process shows (signals, reloading, logs, listening, the CLI) stays on
/// `ServerProcess`.
enum InProcessServer {
    static func test(
        _ options: ServerProcess.Options = .init(), _ body: @Sendable (HTTPTestClient) async throws -> Void
    ) async throws {
        let data = try TemporaryDirectory(prefix: "walkscape-server-data")
        let command = try ServeCommand.parse(options.arguments + ["--data", data.path])
        var logger = Logger(label: "walkscape-server-tests")
        logger.logLevel = .warning
        let app = try await WalkscapeServerApp.application(command.configuration(), logger: logger)
        try await app.test(.router) { client in try await body(HTTPTestClient(router: client)) }
    }
}

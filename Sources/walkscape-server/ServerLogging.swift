import ArgumentParser
import Logging

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Logs go to stderr (stdout carries only the base URL and admin output), control characters made
/// inert (`SanitizingLogHandler`).
enum ServerLogging {
    static func bootstrap(level: Logger.Level) -> Logger {
        LoggingSystem.bootstrap { label in
            var handler = SanitizingLogHandler(inner: StreamLogHandler.standardError(label: label))
            handler.logLevel = level
            return handler
        }
        var logger = Logger(label: "walkscape-server")
        logger.logLevel = level
        return logger
    }
}

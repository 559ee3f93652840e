import ArgumentParser
import Logging

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Logs go to stderr (stdout carries only the base URL and admin output).
enum ServerLogging {
    static func bootstrap(level: Logger.Level) -> Logger {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        var logger = Logger(label: "walkscape-server")
        logger.logLevel = level
        return logger
    }
}

import Foundation
import Logging
import TourModel

/// What walkscape-server prints for a person: a line or JSON, with the control characters a client
/// may have put in an e-mail, an event id or a name made inert (`TerminalText`), as walkscape does
/// for what a service sends it.
enum AdminOutput {
    /// One record a line: tabs separate fields here (`voucher list`, `stats`) and stay; each field
    /// is sanitised to one line, so a newline a client put in an event id forges no record.
    static func line(_ text: String) {
        print(
            text.split(separator: "\t", omittingEmptySubsequences: false).map { TerminalText.line(String($0)) }
                .joined(separator: "\t"))
    }

    static func json(_ data: Data) {
        print(String(decoding: TerminalText.sanitizedJSON(data), as: UTF8.self))
    }
}

/// The log handler of `ServerLogging`: the stream handler, with every message and metadata value
/// sanitised first (a registration's e-mail is logged at each token refresh and redemption).
struct SanitizingLogHandler: LogHandler {
    var inner: StreamLogHandler

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.message = "\(TerminalText.line(event.message.description))"
        event.metadata = event.metadata.map { $0.mapValues(Self.sanitized) }
        inner.log(event: event)
    }

    static func sanitized(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(TerminalText.line(text))
        case .stringConvertible(let value): .string(TerminalText.line(value.description))
        case .array(let values): .array(values.map(sanitized))
        case .dictionary(let values): .dictionary(values.mapValues(sanitized))
        }
    }
}

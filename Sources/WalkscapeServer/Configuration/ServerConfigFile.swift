import FileAccess
import Foundation
import TourModel

/// The server's settings file (`--config FILE`; the Debian package's is
/// `/etc/walkscape-server/server.conf`), in the walker's `key = value` syntax (KeyValueText):
///
///     tours = /srv/walkscape/tours        # may be given more than once
///     host = 0.0.0.0
///     port = 8080
///     public-url = https://walks.example.org
///     data = /var/lib/walkscape-server
///     secret-file = /etc/walkscape-server/secret
///
/// A flag beats the environment, which beats the file, which beats the default. Relative paths are
/// taken from the file's folder. An unknown key or a line that is not `key = value` is an error
/// naming the line: a misspelt key must not be ignored.
public struct ServerConfigFile: Sendable {
    public static let knownKeys: Set<String> = [
        "tours", "host", "port", "data", "public-url", "secret-file", "dialect", "token-ttl", "refresh-ttl",
        "url-ttl", "log-level", "idle-timeout", "max-downloads", "guesses-per-minute", "tls-certificate", "tls-key",
    ]
    /// Keys whose values are paths, resolved against the file's folder.
    static let pathKeys: Set<String> = ["tours", "data", "secret-file", "tls-certificate", "tls-key"]

    public var path: String
    /// The last value of each key, and the line it is on.
    public var values: [String: (value: String, line: Int)] = [:]
    /// Every `tours` line's folder, in order.
    public var tours: [String] = []

    public init(path: String, text: String) throws(ServerError) {
        self.path = path
        let entries: [KeyValueText.Entry]
        do { entries = try KeyValueText.entries(text) } catch {
            throw ServerError(.usage, "\(path): \(error.message)")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        for entry in entries {
            guard Self.knownKeys.contains(entry.key) else {
                throw ServerError(
                    .usage,
                    "\(path): line \(entry.line): unknown setting '\(TerminalText.line(entry.key))' (known: \(Self.knownKeys.sorted().joined(separator: ", ")))"
                )
            }
            guard !entry.value.isEmpty else {
                throw ServerError(.usage, "\(path): line \(entry.line): \(entry.key) has no value")
            }
            var value = entry.value
            if Self.pathKeys.contains(entry.key), !value.hasPrefix("/") {
                value = folder.appendingPathComponent(value).standardizedFileURL.path
            }
            if entry.key == "tours" { tours.append(value) }
            values[entry.key] = (value, entry.line)
        }
    }

    /// Reads the file; one that is missing, not a regular file or unreadable is an error.
    public static func load(_ path: String) throws(ServerError) -> ServerConfigFile {
        let data: Data
        do { data = try InputFile.contents(of: path) } catch { throw ServerError(.usage, error.message) }
        return try ServerConfigFile(path: path, text: String(decoding: data, as: UTF8.self))
    }

    public subscript(key: String) -> String? { values[key]?.value }

    /// "FILE line N", for messages about a value the file gave.
    public func origin(_ key: String) -> String { "\(path) line \(values[key]?.line ?? 0)" }
}

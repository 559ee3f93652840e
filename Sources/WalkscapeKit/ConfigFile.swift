import FileAccess
import Foundation
import TourModel

/// The settings file, `key = value` lines with `#` comments (KeyValueText's syntax):
///
///     api-url = https://api.example.org
///     gpsd-host = 127.0.0.1
///     gpsd-port = 2947      # gpsd's own port
///     audio-device = "hw:1"
///     language = it
///     api-timeout = 20
///     allow-insecure-http = false
///     loudness = -16        # LUFS, or off
///     ca-file = /etc/ssl/staging-ca.pem   # an authority trusted besides the system's
package struct ConfigFile: Sendable, Hashable {
    package static let knownKeys: Set<String> = [
        "api-url", "gpsd-host", "gpsd-port", "audio-device", "language",
        "allow-insecure-http", "api-timeout", "max-error", "missed", "loudness",
        "analytics", "analytics-dialect", "analytics-batch-bytes", "ca-file",
    ]
    package var values: [String: String] = [:]

    package init(values: [String: String] = [:]) { self.values = values }

    /// A missing file is an empty configuration; a malformed one is an error naming the line, and
    /// one that cannot be read (a FIFO, no permission) an error saying why.
    package static func load(_ url: URL) throws(AppError) -> ConfigFile {
        let data: Data
        do { data = try InputFile.contents(of: url.path) } catch {
            if case .missing = error.cause { return ConfigFile() }
            throw AppError.usage(error.message)
        }
        return try parse(String(decoding: data, as: UTF8.self), file: url.path)
    }

    package static func parse(_ text: String, file: String) throws(AppError) -> ConfigFile {
        var values: [String: String] = [:]
        let entries: [KeyValueText.Entry]
        do { entries = try KeyValueText.entries(text) } catch { throw AppError.usage("\(file): \(error.message)") }
        for entry in entries {
            guard knownKeys.contains(entry.key) else {
                throw AppError.usage(
                    "\(file): line \(entry.line): unknown setting \(TerminalText.echo(entry.key)) (known: \(knownKeys.sorted().joined(separator: ", ")))"
                )
            }
            values[entry.key] = entry.value
        }
        return ConfigFile(values: values)
    }

    package subscript(key: String) -> String? { values[key] }

    /// Sets `key = value` in the file at `url` (`walkscape analytics on|off`), keeping every other
    /// line as written, comments included: the last line that sets `key` is replaced, or the
    /// setting is added at the end. The file is replaced atomically; a file that does not parse is
    /// left alone and named in the error.
    package static func set(_ key: String, to value: String, in url: URL) throws(AppError) {
        var text = ""
        do { text = String(decoding: try InputFile.contents(of: url.path), as: UTF8.self) } catch {
            guard case .missing = error.cause else { throw AppError.usage(error.message) }
        }
        _ = try parse(text, file: url.path)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        let setting = "\(key) = \(value)"
        let index = lines.lastIndex { line in
            let content = KeyValueText.withoutComment(Substring(line))
            guard let eq = content.firstIndex(of: "=") else { return false }
            return content[..<eq].trimmingCharacters(in: .whitespaces).lowercased() == key
        }
        if let index { lines[index] = setting } else { lines.append(setting) }
        let file = OutputFile(url.path)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            var before = stat()
            let existing = stat(url.path, &before) == 0 ? before.st_mode & 0o777 : nil
            try file.open()
            try file.write(Data((lines.joined(separator: "\n") + "\n").utf8))
            try file.commit()
            // Nobody else may change the walker's settings, whatever the umask: a new file is the
            // owner's alone, a file that was there keeps its mode less group and world write.
            chmod(url.path, existing.map { $0 & ~0o022 } ?? 0o600)
        } catch let error as FileAccessError {
            file.discard()
            throw AppError.failure(error.message)
        } catch {
            file.discard()
            throw AppError.failure("cannot write \(url.path): \(error.localizedDescription)")
        }
    }
}

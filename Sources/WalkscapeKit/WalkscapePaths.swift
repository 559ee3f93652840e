import Foundation

/// Where walkscape keeps things (docs/architecture.md, "Where rules live"): XDG base directories, or everything under
/// one folder when `--home` / `WALKSCAPE_HOME` is given (tests use that).
package struct WalkscapePaths: Sendable, Hashable {
    package var config: URL
    package var data: URL
    package var state: URL
    /// What can be made again: the loudness measured of tour folders' narrations.
    package var cache: URL

    package var configFile: URL { config.appendingPathComponent("config") }
    package var credentialsFile: URL { config.appendingPathComponent("credentials.json") }
    package var catalog: URL { data.appendingPathComponent("catalog.sqlite") }
    package var media: URL { data.appendingPathComponent("media", isDirectory: true) }
    package var progress: URL { state.appendingPathComponent("progress", isDirectory: true) }
    /// The event journal of walkscape before the analytics outbox: imported into it, then removed.
    package var legacyJournal: URL { state.appendingPathComponent("outbox.jsonl") }
    /// The analytics outbox (docs/analytics.md).
    package var analyticsOutbox: URL { state.appendingPathComponent("analytics.sqlite") }
    /// Held while a walkscape sends the outbox, so two never send the same batch at once.
    package var analyticsSendLock: URL { state.appendingPathComponent("analytics.send.lock") }
    /// The installation's anonymous id, sent with every event.
    package var anonymousID: URL { config.appendingPathComponent("anonymous-id") }
    /// Loudness of tour folders' narrations by content hash (docs/loudness.md).
    package var loudnessCache: URL { cache.appendingPathComponent("loudness.json") }

    package static func resolve(home: String?, environment: [String: String]) -> WalkscapePaths {
        if let home = home ?? environment["WALKSCAPE_HOME"], !home.isEmpty {
            let root = URL(fileURLWithPath: home, isDirectory: true).standardizedFileURL
            return WalkscapePaths(
                config: root.appendingPathComponent("config", isDirectory: true),
                data: root.appendingPathComponent("data", isDirectory: true),
                state: root.appendingPathComponent("state", isDirectory: true),
                cache: root.appendingPathComponent("cache", isDirectory: true))
        }
        let userHome =
            environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        func xdg(_ variable: String, _ fallback: String) -> URL {
            // The spec says relative values are invalid and must be ignored.
            if let value = environment[variable], value.hasPrefix("/") {
                return URL(fileURLWithPath: value, isDirectory: true)
            }
            return userHome.appendingPathComponent(fallback, isDirectory: true)
        }
        return WalkscapePaths(
            config: xdg("XDG_CONFIG_HOME", ".config").appendingPathComponent("walkscape", isDirectory: true),
            data: xdg("XDG_DATA_HOME", ".local/share").appendingPathComponent("walkscape", isDirectory: true),
            state: xdg("XDG_STATE_HOME", ".local/state").appendingPathComponent("walkscape", isDirectory: true),
            cache: xdg("XDG_CACHE_HOME", ".cache").appendingPathComponent("walkscape", isDirectory: true))
    }
}

import Foundation

/// The analytics events kept in a home's outbox, as `walkscape analytics show --json` lists them:
/// each one in the live shape, plus `state` (waiting, quarantined, local), `service`,
/// `recordedAt` and `problem`. Oldest first.
public enum KeptEvents {
    public static func read(_ home: TemporaryDirectory, state: String? = nil) -> [[String: Any]] {
        var arguments = ["analytics", "show", "--json", "--home", home.path]
        if let state { arguments += ["--state", state] }
        guard let result = try? run(TestPaths.walkscape, arguments, environment: ["DO_NOT_TRACK": ""]),
            result.status == 0
        else {
            return []
        }
        return (try? JSONSerialization.jsonObject(with: result.stdoutData) as? [[String: Any]]) ?? []
    }
}

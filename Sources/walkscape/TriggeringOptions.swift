import ArgumentParser
import Walk
import WalkscapeKit

/// The triggering knobs (docs/walk.md, rules 1, 2 and 4), the same for `walk` and `preview` so a
/// curator previews with exactly the settings a walker will use.
struct TriggeringOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Points passed over before a later one: play, skip or strict (env: WALKSCAPE_MISSED; default play).",
            valueName: "policy"))
    var missed: WalkPolicy.MissedPoints?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Ignore fixes whose error estimate exceeds this (metres; env: WALKSCAPE_MAX_ERROR; default 50).",
            valueName: "m"))
    var maxError: Double?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("Consecutive fixes inside a radius to enter it.", valueName: "n"))
    var confirm: Int = 2

    func validate() throws {
        if let maxError { try Limits.maxError.check(maxError, flag: "--max-error") }
        try Limits.confirm.check(confirm, flag: "--confirm")
    }

    /// The flags, else the settings (environment, config file), else the defaults.
    func policy(_ settings: Settings) throws(AppError) -> WalkPolicy {
        var policy = WalkPolicy(confirmationFixes: confirm)
        if let maxError {
            policy.maxHorizontalError = maxError
        } else if let metres = try settings.maxError() {
            policy.maxHorizontalError = metres
        }
        if let missed { policy.missed = missed } else if let missed = try settings.missed() { policy.missed = missed }
        return policy
    }
}

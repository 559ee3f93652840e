import ArgumentParser
import Walk

/// The triggering knobs (DESIGN.md, rules 1, 2 and 4), the same for `walk` and `preview` so a
/// curator previews with exactly the settings a walker will use.
struct TriggeringOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Points passed over before a later one: play, skip or strict.", valueName: "policy"))
    var missed: WalkPolicy.MissedPoints = .play

    @Option(name: .long, help: ArgumentHelp("Ignore fixes whose error estimate exceeds this (metres).", valueName: "m"))
    var maxError: Double = 50

    @Option(name: .long, help: ArgumentHelp("Consecutive fixes inside a radius to enter it.", valueName: "n"))
    var confirm: Int = 2

    func validate() throws {
        if !(maxError > 0) { throw ValidationError("--max-error must be a positive number of metres") }
        if confirm < 1 { throw ValidationError("--confirm must be at least 1") }
    }

    var policy: WalkPolicy { WalkPolicy(maxHorizontalError: maxError, confirmationFixes: confirm, missed: missed) }
}

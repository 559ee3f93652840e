import Foundation

/// The one rule for numeric flags and settings: a number from outside is checked against the
/// range the command can work with before any work starts. "Positive" is not enough: `inf`,
/// `nan` and `1e19` parse as numbers too, and further in they trap (converting to `Int`, making
/// a `Duration`) or make a walk that never ends.
package struct FlagRange<Value: Comparable & Sendable>: Sendable {
    package var range: ClosedRange<Value>
    /// How the values are counted in messages: "metres", "seconds"; empty for plain numbers.
    package var unit: String

    package init(_ range: ClosedRange<Value>, unit: String = "") {
        self.range = range
        self.unit = unit
    }

    /// `between 0.1 and 10000 metres`.
    package var phrase: String {
        "between \(Self.text(range.lowerBound)) and \(Self.text(range.upperBound))" + (unit.isEmpty ? "" : " \(unit)")
    }

    package func contains(_ value: Value) -> Bool { range.contains(value) }

    package static func text(_ value: Value) -> String {
        if let d = value as? Double { return String(format: "%g", d) }
        return "\(value)"
    }
}

/// The ranges, in one place for flags, environment and config file alike.
package enum Limits {
    /// The fix filter's error bound: a receiver that claims better than 10 cm is not believed, and
    /// beyond 10 km a "fix" says nothing about which street the walker is in.
    package static let maxError = FlagRange(0.1...10_000.0, unit: "metres")
    /// Fixes inside a radius to enter it: more than 100 (a minute and a half at 1 Hz) is not a walk.
    package static let confirm = FlagRange(1...100)
    /// Preview pace: from a hundredth of real time to ten thousand times faster.
    package static let speed = FlagRange(0.01...10_000.0)
    /// Silence from gpsd before it counts as gone.
    package static let gpsdTimeout = FlagRange(0.1...3600.0, unit: "seconds")
    package static let gpsdPort = FlagRange(1...65535)
    package static let volume = FlagRange(0.0...1.0)
    /// Walking pace for lint's narration-length check.
    package static let walkingSpeed = FlagRange(0.1...10.0, unit: "m/s")
    package static let mapWidth = FlagRange(300...10_000, unit: "pixels")
    /// How long the API may take to answer: under a tenth of a second is not a network, over an
    /// hour is a hang.
    package static let apiTimeout = FlagRange(0.1...3600.0, unit: "seconds")
    /// An analytics batch's body: a service that takes less than 1 kB takes no batches at all; the
    /// live one refuses more than about 100 kB.
    package static let analyticsBatchBytes = FlagRange(1024...1_048_576, unit: "bytes")
    /// How long `sync` keeps trying a failing service.
    package static let syncTime = FlagRange(1.0...86_400.0, unit: "seconds")
}

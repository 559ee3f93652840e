import ArgumentParser
import WalkscapeKit

extension FlagRange {
    /// Throws ArgumentParser's usage error (exit 64) naming the flag, the range and the value.
    func check(_ value: Value, flag: String) throws(ValidationError) {
        guard range.contains(value) else { throw ValidationError("\(flag) must be \(phrase), not \(Self.text(value))") }
    }
}

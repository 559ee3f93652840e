/// A test precondition that did not hold, with what was seen.
struct Unexpected: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Why a walk cannot be set up. One line for the user, and the exit code the CLI returns.
public struct WalkError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What a person can do about it, for the program to word (a library names no flags).
    public enum Remedy: Sendable, Hashable {
        /// Forget the saved walk and start the tour again.
        case startAgain
        /// Move the file aside, or forget the saved walk and start again.
        case moveAsideOrStartAgain
    }

    public var message: String
    public var exitCode: Int32
    public var remedy: Remedy?

    public init(_ message: String, exitCode: Int32 = 1, remedy: Remedy? = nil) {
        self.message = message
        self.exitCode = exitCode
        self.remedy = remedy
    }

    public var description: String { message }
}

/// Why a walk cannot be set up. One line for the user, and the exit code the CLI returns.
public struct WalkError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var exitCode: Int32

    public init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }

    public var description: String { message }
}

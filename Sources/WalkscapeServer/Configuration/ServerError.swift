/// A problem that stops the server or an admin command, phrased for the person at the terminal, with
/// the exit code the walker's CLI uses for the same kind (64 usage, 65 data, 69 unavailable, 1 failure).
public struct ServerError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case usage, data, unavailable, failure

        public var exitCode: Int32 {
            switch self {
            case .usage: 64
            case .data: 65
            case .unavailable: 69
            case .failure: 1
            }
        }
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var exitCode: Int32 { kind.exitCode }
    public var description: String { message }
}

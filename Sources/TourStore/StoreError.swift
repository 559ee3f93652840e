import TourAPI

/// A failure of the content store, in one line for a person; `kind` says what sort, and the
/// command line turns it into an exit code.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// No such installed tour or language.
        case notFound
        /// Another walkscape is changing the store right now.
        case busy
        /// The disk is full, or a file size limit was reached.
        case noSpace
        /// The service sent what it did not declare (a size that does not match).
        case badData
        /// The tour changed on the service while it was being downloaded (a file's size or place
        /// is not the one planned): planning again from the new version is the way on.
        case tourChanged
        /// The catalog or a blob is damaged (`verify` says which).
        case damaged
        /// Stopped on request (Ctrl-C): what was downloaded is kept for the next run.
        case cancelled
        /// The service failed: the API client's own kind.
        case service(APIError.Kind)
        /// The file system refused something else.
        case io
    }

    public var kind: Kind
    public var message: String
    /// The way out, when there is one the person can take (the command line words it).
    public var remedy: Remedy?

    public init(_ kind: Kind, _ message: String, remedy: Remedy? = nil) {
        self.kind = kind
        self.message = message
        self.remedy = remedy
    }

    public init(_ error: APIError) {
        self.init(.service(error.kind), error.message, remedy: error.remedy)
    }

    public var description: String { message }
}

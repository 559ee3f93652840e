/// A problem with tour data, phrased for the person who has to fix it: which file, which field, why.
public struct TourModelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file the problem is in, relative to the tour folder where there is one (`tour.json`).
    public var file: String
    /// A JSON path like `points[2].location.lat`, or `line 14`; empty when the whole file is at fault.
    public var field: String
    public var reason: String

    public init(file: String, field: String = "", reason: String) {
        self.file = file
        self.field = field
        self.reason = reason
    }

    /// One line: `tour.json: points[2].location.lat: 95.5 is not a latitude (...)`.
    public var message: String {
        field.isEmpty ? "\(file): \(reason)" : "\(file): \(field): \(reason)"
    }

    public var description: String { message }
}

/// An error body: `{"statusCode": N, "message": "text" | ["text", ...], "error": "Bad Request"}`.
/// `message` is an array for validation errors; both read as `messages`.
public struct APIErrorBody: Sendable, Hashable, Decodable {
    public var statusCode: Int?
    public var messages: [String]
    public var error: String?

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        statusCode = try? c.first(Int.self, "statusCode")
        if let list = try? c.first([String].self, "message") {
            messages = list
        } else if let one = try? c.first(String.self, "message") {
            messages = [one]
        } else {
            messages = []
        }
        error = try? c.first(String.self, "error")
    }

    /// One line for a person: the server's messages joined, else the error name.
    public var summary: String {
        messages.isEmpty ? (error ?? "no details") : messages.joined(separator: "; ")
    }
}

/// `GET /health`: `{status: "ok", ...}`.
public struct HealthStatus: Sendable, Hashable, Decodable {
    public var status: String
    public var isOK: Bool { status.lowercased() == "ok" }
}

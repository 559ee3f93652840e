/// An error body: `{"statusCode": N, "message": "text" | ["text", ...], "error": "Bad Request"}`.
/// `message` is an array for validation errors; both read as `messages`.
public struct APIErrorBody: Sendable, Hashable, Decodable, APIEncodable {
    public var statusCode: Int?
    public var messages: [String]
    public var error: String?
    /// True when `message` is (or is to be sent as) an array: the service's validation errors.
    public var messageIsList: Bool

    public init(statusCode: Int, messages: [String], error: String?, messageIsList: Bool) {
        self.statusCode = statusCode
        self.messages = messages
        self.error = error
        self.messageIsList = messageIsList
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        statusCode = try? c.first(Int.self, "statusCode")
        // The service's words, one line each (`TerminalText.line`): a newline in them would print
        // a line of the service's own under walkscape's name.
        if let list = try? c.first([String].self, "message") {
            messages = list.map(TerminalText.line)
            messageIsList = true
        } else if let one = try? c.first(String.self, "message") {
            messages = [TerminalText.line(one)]
            messageIsList = false
        } else {
            messages = []
            messageIsList = false
        }
        error = (try? c.first(String.self, "error")).map(TerminalText.line)
    }

    public func encode(to encoder: any Encoder, dialect: APIDialect) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.putIfPresent(statusCode, "statusCode")
        if messageIsList {
            try c.put(messages, "message")
        } else {
            try c.put(messages.joined(separator: "; "), "message")
        }
        try c.putIfPresent(error, "error")
    }

    /// One line for a person: the server's messages joined, else the error name.
    public var summary: String {
        messages.isEmpty ? (error ?? "no details") : messages.joined(separator: "; ")
    }
}

/// `GET /health`: `{status: "ok", info, error, details}` (the service's health-check shape), or 503
/// with `status: "error"`. `details` maps each checked part to `{status: "up" | "down", ...}`.
public struct HealthStatus: Sendable, Hashable, Decodable, APIEncodable {
    public var status: String
    public var details: [String: JSONValue]
    public var isOK: Bool { status.lowercased() == "ok" }

    public init(status: String, details: [String: JSONValue] = [:]) {
        self.status = status
        self.details = details
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        status = try c.require(String.self, "status")
        details = (try? c.first([String: JSONValue].self, "details")) ?? [:]
    }

    public func encode(to encoder: any Encoder, dialect: APIDialect) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.put(status, "status")
        let up = details.filter { $0.value["status"]?.stringValue == "up" }
        let down = details.filter { $0.value["status"]?.stringValue != "up" }
        try c.put(up, "info")
        try c.put(down, "error")
        try c.put(details, "details")
    }
}

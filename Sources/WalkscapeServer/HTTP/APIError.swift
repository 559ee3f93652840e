import HTTPTypes
import Hummingbird
import TourModel

/// An error answer in the live service's shape: `{statusCode, message, error}`, `message` an array
/// for validation errors. Thrown by handlers; `ErrorMiddleware` writes it.
struct APIError: Error, Sendable {
    var status: HTTPResponse.Status
    var messages: [String]
    var isList: Bool
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.messages = [message]
        self.isList = false
        self.headers = headers
    }

    init(_ status: HTTPResponse.Status, messages: [String]) {
        self.status = status
        self.messages = messages
        self.isList = true
    }

    /// Validation failures: always a list, as the service's validation pipe sends them.
    /// At most `maxMessages` messages, then how many more: 100 kB of bad events must not become
    /// megabytes of answer (each message repeats the whitelist).
    static func validation(_ messages: [String]) -> APIError {
        guard messages.count > maxMessages else { return APIError(.badRequest, messages: messages) }
        return APIError(
            .badRequest,
            messages: Array(messages.prefix(maxMessages)) + ["and \(messages.count - maxMessages) more problems"])
    }

    static let maxMessages = 50
    static var unauthorized: APIError { APIError(.unauthorized, "Unauthorized") }
    static var forbiddenTour: APIError { APIError(.forbidden, "Access denied. Redeem a voucher to access this tour.") }
    static var payloadTooLarge: APIError { APIError(.contentTooLarge, "request entity too large") }

    var body: APIErrorBody {
        APIErrorBody(statusCode: status.code, messages: messages, error: Self.name(of: status), messageIsList: isList)
    }

    /// The reason phrases the service's framework writes in `error` (Express's, e.g. "Payload Too Large").
    static func name(of status: HTTPResponse.Status) -> String {
        switch status.code {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 413: "Payload Too Large"
        case 416: "Range Not Satisfiable"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: status.reasonPhrase
        }
    }

    func response(dialect: APIDialect) -> Response {
        var response = JSONResponse.make(body, status: status, dialect: dialect)
        for field in headers { response.headers.append(field) }
        return response
    }
}

import Foundation
import TourAPI

/// A transport seam for unit tests of the retry, redirect and session rules: answers from a
/// script, records what was sent. (The real transport is proved against walkscape-server in
/// CLITests.)
final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
    enum Step {
        case answer(Int, headers: HTTPHeaderFields = [:], body: String = "")
        /// A body of any bytes, UTF-8 or not.
        case answerBytes(Int, Data)
        /// The head arrives, then the connection breaks before the body does.
        case answerThenBreak(Int)
        case fail(TransportError.Kind)
    }

    private let lock = NSLock()
    private var steps: [Step]
    private var handler: (@Sendable (HTTPRequest) async -> Step)?
    private(set) var sent: [HTTPRequest] = []

    init(_ steps: [Step]) { self.steps = steps }

    /// Answers every request with `handler` instead of a fixed script.
    init(handler: @escaping @Sendable (HTTPRequest) async -> Step) {
        steps = []
        self.handler = handler
    }

    var requests: [HTTPRequest] { lock.withLock { sent } }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let scripted: Step? = lock.withLock {
            sent.append(request)
            return handler == nil ? (steps.isEmpty ? nil : steps.removeFirst()) : nil
        }
        let step: Step
        if let scripted {
            step = scripted
        } else if let handler {
            step = await handler(request)
        } else {
            step = .fail(.cannotConnect)
        }
        switch step {
        case .answer(let status, let headers, let body):
            return HTTPResponse(status: status, headers: headers, body: .bytes(Data(body.utf8)), url: request.url)
        case .answerBytes(let status, let body):
            return HTTPResponse(status: status, body: .bytes(body), url: request.url)
        case .answerThenBreak(let status):
            return HTTPResponse(
                status: status,
                body: ResponseBody {
                    ResponseBody.AsyncIterator { throw TransportError(.connectionLost, "scripted break") }
                }, url: request.url)
        case .fail(let kind):
            throw TransportError(kind, "scripted \(kind)")
        }
    }

    func shutdown() async throws {}
}

/// The same jitter fraction every time.
struct FixedJitter: JitterSource {
    var value: Double
    func fraction() -> Double { value }
}

/// Credentials in memory.
final class MemoryCredentialStore: CredentialStore, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Credentials?
    private(set) var saves = 0

    init(_ credentials: Credentials? = nil) { stored = credentials }

    var current: Credentials? { lock.withLock { stored } }
    func load() throws(APIError) -> Credentials? { lock.withLock { stored } }
    func save(_ credentials: Credentials) throws(APIError) {
        lock.withLock {
            stored = credentials; saves += 1
        }
    }
    func remove() throws(APIError) { lock.withLock { stored = nil } }
    func exclusively<T: Sendable>(_ body: @Sendable () async throws(APIError) -> T) async throws(APIError) -> T {
        try await body()
    }
}

/// Unsigned JWTs with the claims the client reads (it never verifies signatures; the server does).
enum TestToken {
    static func make(subject: String = "u1", issuedAt: Date, expiresAt: Date, nonce: String = UUID().uuidString)
        -> String
    {
        func part(_ object: [String: Any]) -> String {
            let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            return data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return [
            part(["alg": "HS256", "typ": "JWT"]),
            part([
                "sub": subject, "email": "ada@example.org", "iat": Int(issuedAt.timeIntervalSince1970),
                "exp": Int(expiresAt.timeIntervalSince1970), "jti": nonce,
            ]),
            "c2lnbmF0dXJl",
        ].joined(separator: ".")
    }
}

import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOHTTP1
import TestSupport
import TourModel

/// Requests to the server: over real HTTP with AsyncHTTPClient against a `ServerProcess`, or
/// in-process through Hummingbird's testing client (`InProcessServer`). Tests read the same either way.
struct HTTPTestClient: @unchecked Sendable {
    enum Backend {
        case network(base: String)
        case router(any TestClientProtocol)
    }
    let backend: Backend

    init(_ server: ServerProcess) { backend = .network(base: server.baseURL) }
    init(router client: any TestClientProtocol) { backend = .router(client) }

    /// `path` is appended to the base unless it is already a full URL (a signed media URL).
    func send(
        _ method: HTTPMethod, _ path: String, token: String? = nil, headers: [(String, String)] = [],
        body: Data? = nil, contentType: String? = "application/json"
    ) async throws -> Reply {
        let base: String
        switch backend {
        case .network(let url):
            base = url
        case .router(let client):
            return try await sendInProcess(
                client, method, path, token: token, headers: headers, body: body, contentType: contentType)
        }
        var request = HTTPClientRequest(url: path.hasPrefix("http") ? path : base + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let collected = try await response.body.collect(upTo: 512 * 1024 * 1024)
        return Reply(
            status: Int(response.status.code), headers: response.headers, body: Data(collected.readableBytesView))
    }

    /// The same request through the router: a full URL (a signed media link) keeps its path and query.
    private func sendInProcess(
        _ client: any TestClientProtocol, _ method: HTTPMethod, _ path: String, token: String?,
        headers: [(String, String)], body: Data?, contentType: String?
    ) async throws -> Reply {
        var uri = path
        if path.hasPrefix("http"), let url = URLComponents(string: path) {
            uri = url.percentEncodedPath + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
        }
        var fields = HTTPFields()
        if let token { fields[.authorization] = "Bearer \(token)" }
        for (name, value) in headers { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        if body != nil, let contentType { fields[.contentType] = contentType }
        let response = try await client.execute(
            uri: uri, method: HTTPRequest.Method(method.rawValue)!, headers: fields,
            body: body.map { ByteBuffer(bytes: $0) })
        var replyHeaders = HTTPHeaders()
        for field in response.headers { replyHeaders.add(name: field.name.rawName, value: field.value) }
        return Reply(
            status: Int(response.status.code), headers: replyHeaders, body: Data(response.body.readableBytesView))
    }

    func get(_ path: String, token: String? = nil, headers: [(String, String)] = []) async throws -> Reply {
        try await send(.GET, path, token: token, headers: headers)
    }

    func post(_ path: String, _ json: JSONValue, token: String? = nil) async throws -> Reply {
        try await send(.POST, path, token: token, body: try JSONEncoder().encode(json))
    }

    func post(_ path: String, raw: String, token: String? = nil, contentType: String? = "application/json") async throws
        -> Reply
    {
        try await send(.POST, path, token: token, body: Data(raw.utf8), contentType: contentType)
    }

    /// Registers an account and returns its session.
    func register(_ email: String, password: String = "correct horse battery") async throws -> AuthSession {
        let reply = try await post("/auth/register", ["email": .string(email), "password": .string(password)])
        guard reply.status == 201 else { throw Unexpected("register \(email): \(reply.status) \(reply.text)") }
        return try reply.decode()
    }

    func manifest(_ tour: String, language: String = "en", token: String? = nil) async throws -> TourManifest {
        let reply = try await get("/tours/\(tour)/manifest?language=\(language)", token: token)
        guard reply.status == 200 else { throw Unexpected("manifest: \(reply.status) \(reply.text)") }
        return try reply.decode()
    }
}

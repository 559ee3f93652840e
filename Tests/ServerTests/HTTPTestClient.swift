import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import TourModel

/// Requests over real HTTP with AsyncHTTPClient, against a `ServerProcess`.
struct HTTPTestClient: Sendable {
    let base: String

    init(_ server: ServerProcess) { base = server.baseURL }

    /// `path` is appended to the base unless it is already a full URL (a signed media URL).
    func send(
        _ method: HTTPMethod, _ path: String, token: String? = nil, headers: [(String, String)] = [],
        body: Data? = nil, contentType: String? = "application/json"
    ) async throws -> Reply {
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

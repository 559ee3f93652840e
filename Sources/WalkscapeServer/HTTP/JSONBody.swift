import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TourModel

/// Reads a request's JSON body the way the live service's body parser does: at most `limit` bytes
/// (413 beyond), a body that is not JSON is a 400 naming the problem, and a body sent with another
/// content type or none is ignored (read as `{}`, which validation then rejects field by field).
enum JSONBody {
    static func object(from request: Request, limit: Int) async throws -> [String: JSONValue] {
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > limit {
            throw APIError.payloadTooLarge
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw APIError.payloadTooLarge
        }
        // Without a JSON content type (none at all included) the live body parser leaves the body unread.
        guard let type = request.headers[.contentType]?.lowercased(), type.contains("json") else { return [:] }
        guard buffer.readableBytes > 0 else { return [:] }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(buffer.readableBytesView))
        } catch {
            throw APIError(.badRequest, "Request body is not valid JSON: \(describe(error))")
        }
        guard case .object(let object) = value else {
            throw APIError(.badRequest, "Request body must be a JSON object")
        }
        return object
    }

    private static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return (underlying ?? context.debugDescription).lowercased()
        }
        return "\(error)"
    }
}

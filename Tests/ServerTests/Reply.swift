import Foundation
import NIOHTTP1
import TourModel

/// One answer, body collected.
struct Reply: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { headers.first(name: name) }

    func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try WalkscapeJSON.decoder().decode(T.self, from: body)
    }

    /// The body as generic JSON (to check exact keys).
    var json: JSONValue { (try? JSONDecoder().decode(JSONValue.self, from: body)) ?? .null }
    var error: APIErrorBody? { try? decode(APIErrorBody.self) }
}

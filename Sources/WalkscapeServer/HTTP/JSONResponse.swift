import HTTPTypes
import Hummingbird
import NIOCore
import TourModel

/// JSON answers, written with the shared wire shapes in the configured dialect.
enum JSONResponse {
    static func make(_ value: some APIEncodable, status: HTTPResponse.Status = .ok, dialect: APIDialect) -> Response {
        let data: [UInt8]
        do {
            data = Array(try WalkscapeJSON.encode(value, dialect: dialect))
        } catch {
            // Our own values always encode; if one ever does not, say so rather than send half of it.
            data = Array(#"{"statusCode":500,"message":"Internal server error","error":"Internal Server Error"}"#.utf8)
            return Response(
                status: .internalServerError, headers: [.contentType: contentType],
                body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        return Response(
            status: status, headers: [.contentType: contentType], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static let contentType = "application/json; charset=utf-8"
}

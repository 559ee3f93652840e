import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TourModel

/// An error from the media host, in S3's XML shape (`<Error><Code>AccessDenied</Code>...`), which is
/// what a client downloading presigned URLs sees from the live service's bucket.
struct S3Error: Error, Sendable {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    /// Further elements S3 adds (`Expires`, `ServerTime`, `Key`...), in order.
    var details: [(String, String)] = []
    var headers: HTTPFields = [:]

    static func expired(expires: Date, now: Date, seconds: String) -> S3Error {
        S3Error(
            status: .forbidden, code: "AccessDenied", message: "Request has expired",
            details: [
                ("X-Amz-Expires", seconds), ("Expires", ISO8601.format(expires)),
                ("ServerTime", ISO8601.format(now)),
            ])
    }

    static var signatureMismatch: S3Error {
        S3Error(
            status: .forbidden, code: "SignatureDoesNotMatch",
            message:
                "The request signature we calculated does not match the signature you provided. Check your key and signing method."
        )
    }

    static func accessDenied(_ message: String = "Access Denied") -> S3Error {
        S3Error(status: .forbidden, code: "AccessDenied", message: message)
    }

    static func noSuchKey(_ key: String) -> S3Error {
        S3Error(
            status: .notFound, code: "NoSuchKey", message: "The specified key does not exist.", details: [("Key", key)])
    }

    /// S3's answer when it is too busy: the client is to try again shortly.
    static var slowDown: S3Error {
        S3Error(
            status: .serviceUnavailable, code: "SlowDown", message: "Please reduce your request rate.",
            headers: [.retryAfter: "1"])
    }

    static func invalidRange(size: Int64) -> S3Error {
        S3Error(
            status: .rangeNotSatisfiable, code: "InvalidRange", message: "The requested range is not satisfiable",
            details: [("ActualObjectSize", "\(size)")], headers: [.contentRange: "bytes */\(size)"])
    }

    var xml: String {
        func escape(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
        }
        var out =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>\(code)</Code><Message>\(escape(message))</Message>"
        for (name, value) in details { out += "<\(name)>\(escape(value))</\(name)>" }
        out +=
            "<RequestId>\(String(UInt64.random(in: 0 ... .max) & 0xFFFF_FFFF_FFFF, radix: 16, uppercase: true))</RequestId></Error>"
        return out
    }

    var response: Response {
        var headers = self.headers
        headers[.contentType] = "application/xml"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: xml)))
    }
}

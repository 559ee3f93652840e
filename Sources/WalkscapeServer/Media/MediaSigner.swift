import Crypto
import Foundation
import TourModel

/// Media URLs in the shape of the live service's S3 presigned URLs:
/// `/media/TOUR/PATH?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20260501T090000Z&X-Amz-Expires=86400&X-Amz-Signature=HEX`.
///
/// The signature is HMAC-SHA256 over the canonical path, the date and the lifetime (hex), so neither
/// the path nor the expiry can be edited. It does not cover the host or the method: the same URL
/// works for GET and HEAD, and through whichever address the client reached the server.
public struct MediaSigner: Sendable {
    public static let algorithm = "AWS4-HMAC-SHA256"
    public static let prefix = "/media/"

    /// What a request's query and path amount to.
    public enum Check: Sendable, Equatable {
        /// Signed and unexpired; the decoded path segments after `/media/`.
        case valid(segments: [String])
        case expired(expires: Date, seconds: String)
        case mismatch
        /// A parameter is missing or malformed.
        case malformed(String)
    }

    let key: SymmetricKey
    /// HMAC with the key already absorbed; copied for each signature (a manifest signs a dozen).
    private let keyed: HMAC<SHA256>

    public init(key: SymmetricKey) {
        self.key = key
        keyed = HMAC<SHA256>(key: key)
    }

    public init(secrets: ServerSecrets) { self.init(key: secrets.mediaURLKey) }

    /// `/media/TOUR/PATH`, each segment percent-encoded.
    public static func path(tourID: String, relativePath: String) -> String {
        let segments = [tourID] + relativePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        return prefix + segments.map(Self.encode).joined(separator: "/")
    }

    /// The query that signs `path` from `date` for `seconds`.
    public func query(path: String, date: Date, seconds: Int) -> String {
        query(path: path, amzDate: PresignedURL.formatAmzDate(date), expires: String(seconds))
    }

    /// The same with the date already formatted (a manifest signs all its URLs from one moment).
    func query(path: String, amzDate: String, expires: String) -> String {
        let signature = sign(canonicalPath: path, amzDate: amzDate, expires: expires)
        return
            "X-Amz-Algorithm=\(Self.algorithm)&X-Amz-Date=\(amzDate)&X-Amz-Expires=\(expires)&X-Amz-Signature=\(signature)"
    }

    /// A complete signed URL under `base` (`http://host:port`, no trailing slash).
    public func url(base: String, tourID: String, relativePath: String, date: Date, seconds: Int) -> String {
        url(
            base: base, tourID: tourID, relativePath: relativePath, amzDate: PresignedURL.formatAmzDate(date),
            expires: String(seconds))
    }

    func url(base: String, tourID: String, relativePath: String, amzDate: String, expires: String) -> String {
        let path = Self.path(tourID: tourID, relativePath: relativePath)
        return base + path + "?" + query(path: path, amzDate: amzDate, expires: expires)
    }

    func sign(canonicalPath: String, amzDate: String, expires: String) -> String {
        var hmac = keyed
        hmac.update(data: Data("\(canonicalPath)\n\(amzDate)\n\(expires)".utf8))
        return Hex.string(hmac.finalize())
    }

    /// Checks a request: `rawPath` exactly as received (still percent-encoded), `query` decoded.
    public func check(rawPath: String, query: [String: String], now: Date) -> Check {
        guard let segments = Self.decodedSegments(of: rawPath) else {
            return .malformed("The request path is malformed")
        }
        guard query["X-Amz-Algorithm"] == Self.algorithm else {
            return .malformed(
                "Query-string authentication requires the X-Amz-Algorithm, X-Amz-Date, X-Amz-Expires and X-Amz-Signature parameters"
            )
        }
        guard let amzDate = query["X-Amz-Date"], let date = PresignedURL.parseAmzDate(amzDate) else {
            return .malformed("X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"")
        }
        guard let expires = query["X-Amz-Expires"], let seconds = Int(expires), seconds >= 0 else {
            return .malformed("X-Amz-Expires must be non-negative")
        }
        guard let signature = query["X-Amz-Signature"], let given = Self.hexBytes(signature) else { return .mismatch }
        let canonical = Self.prefix + segments.map(Self.encode).joined(separator: "/")
        let message = Data("\(canonical)\n\(amzDate)\n\(expires)".utf8)
        guard HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: message, using: key) else {
            return .mismatch
        }
        let expiry = date.addingTimeInterval(Double(seconds))
        guard now <= expiry else { return .expired(expires: expiry, seconds: expires) }
        return .valid(segments: segments)
    }

    /// The percent-decoded segments of `/media/a/b%20c` (`["a", "b c"]`); nil when the path does not
    /// start with `/media/`, an escape is broken, or a segment is not UTF-8.
    static func decodedSegments(of rawPath: String) -> [String]? {
        guard rawPath.hasPrefix(prefix) else { return nil }
        var segments: [String] = []
        for raw in rawPath.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false) {
            guard let decoded = percentDecode(raw) else { return nil }
            segments.append(decoded)
        }
        return segments
    }

    static func percentDecode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                // Two hex digits (`UInt8(_:radix:)` would take a sign: `%+2` was byte 0x02).
                guard let high = iterator.next(), let low = iterator.next(),
                    let value = Hex.bytes(String(decoding: [high, low], as: UTF8.self))?.first
                else { return nil }
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// RFC 3986: unreserved characters as they are, every other byte as `%XX`.
    static func encode(_ segment: String) -> String {
        let upper = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(segment.utf8.count)
        for byte in segment.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), upper[Int(byte >> 4)], upper[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A signature as sent: 64 hex digits, nothing else (`UInt8(_:radix:)` took "+a" for "0a").
    static func hexBytes(_ text: String) -> Data? {
        guard text.utf8.count == 64, let bytes = Hex.bytes(text) else { return nil }
        return Data(bytes)
    }
}

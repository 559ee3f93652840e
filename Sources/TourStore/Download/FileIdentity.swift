import Crypto
import Foundation
import TourModel

/// How a file of the service is known before it is downloaded: its URL without the query (the
/// signature changes with every manifest) and its declared size. The same identity in two tours
/// or two languages is the same file, stored and downloaded once; after the download the blob's
/// SHA-256 names it.
///
/// The host is kept (two media hosts may share a path), the port is not, as in
/// `TourManifest.fingerprint`: a local server restarted on another port serves the same files.
public struct FileIdentity: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// `host/path`, the path as sent (still percent-encoded).
    public var location: String
    public var size: Int64

    public init(location: String, size: Int64) {
        self.location = location
        self.size = size
    }

    public init(url: String, size: Int64) {
        self.init(location: Self.location(of: url), size: size)
    }

    public static func location(of url: String) -> String {
        guard let components = URLComponents(string: url) else {
            return String(url.prefix { $0 != "?" && $0 != "#" })
        }
        return "\(components.host?.lowercased() ?? "")\(components.percentEncodedPath)"
    }

    /// The name of the file a download of it is written to until complete: fixed by the identity,
    /// so the next run finds and resumes it.
    var partName: String {
        let digest = SHA256.hash(data: Data("\(location)\n\(size)".utf8))
        return Hex.string(digest) + ".part"
    }

    /// The last path segment, percent-decoded: what a person recognises (`02.mp3`).
    public var fileName: String {
        let last = location.split(separator: "/").last.map(String.init) ?? location
        return last.removingPercentEncoding ?? last
    }

    public var description: String { "\(location) (\(size) bytes)" }

    public static func < (a: FileIdentity, b: FileIdentity) -> Bool {
        (a.location, a.size) < (b.location, b.size)
    }
}

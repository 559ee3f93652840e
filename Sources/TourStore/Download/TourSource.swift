import Foundation
import TourAPI
import TourModel

/// Where a download gets the tour and its bytes: the service, through `APIClient`. A protocol so
/// the downloader's rules can be unit-tested at this seam; the capability itself is tested
/// against the real walkscape-server.
public protocol TourSource: Sendable {
    func tour(_ id: String, language: String) async throws(APIError) -> TourDetail
    func points(ofTour id: String, language: String) async throws(APIError) -> [TourPoint]
    func manifest(ofTour id: String, language: String) async throws(APIError) -> TourManifest
    /// A GET of a media URL with the download's own `Range` / `If-Range`; every status comes back.
    func fetch(_ url: URL, headers: HTTPHeaderFields, timeout: Duration?) async throws(APIError) -> HTTPResponse
    /// Why `fetch` would refuse `url` without asking anything (nil: it would ask): every link of a
    /// download is judged before its first byte is fetched.
    func mediaLinkProblem(_ url: URL) -> APIError?
}

extension APIClient: TourSource {}

/// What a download asks the service through: its few API calls (details, points, manifests, a
/// renewed manifest) persist through a burst of 5xx (`RetryPolicy.persistent`), since a long
/// download matters more than any one catalog request; its media requests keep the client's own
/// attempts, as the downloader resumes them and judges their progress itself.
public struct DownloadSource: TourSource {
    public let calls: APIClient
    public let media: APIClient

    public init(_ client: APIClient) {
        calls = client.persistent
        media = client
    }

    public func tour(_ id: String, language: String) async throws(APIError) -> TourDetail {
        try await calls.tour(id, language: language)
    }

    public func points(ofTour id: String, language: String) async throws(APIError) -> [TourPoint] {
        try await calls.points(ofTour: id, language: language)
    }

    public func manifest(ofTour id: String, language: String) async throws(APIError) -> TourManifest {
        try await calls.manifest(ofTour: id, language: language)
    }

    public func fetch(_ url: URL, headers: HTTPHeaderFields, timeout: Duration?) async throws(APIError) -> HTTPResponse
    {
        try await media.fetch(url, headers: headers, timeout: timeout)
    }

    public func mediaLinkProblem(_ url: URL) -> APIError? { media.mediaLinkProblem(url) }
}

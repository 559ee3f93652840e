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
}

extension APIClient: TourSource {}

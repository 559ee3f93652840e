import Crypto
import Foundation
import TourModel

/// What the service says one language version of a tour is: its details, its points and its
/// manifest.
public struct TourContent: Sendable, Hashable {
    public var detail: TourDetail
    public var points: [TourPoint]
    public var manifest: TourManifest

    public init(detail: TourDetail, points: [TourPoint], manifest: TourManifest) {
        self.detail = detail
        self.points = points
        self.manifest = manifest
    }

    /// Identifies the content whatever the URL signatures and whatever the manifest's `version`
    /// says (it changes only when a language is republished, not when points or media are
    /// edited): the texts a walker reads, the points, and each file by its URL without the query
    /// plus its size. Two downloads with the same fingerprint install the same tour.
    public var fingerprint: String {
        Self.fingerprint(detail: detail, points: points, files: manifest.fingerprint)
    }

    static func fingerprint(detail: TourDetail, points: [TourPoint], files: String) -> String {
        // Access is the walker's, not the tour's: it must not make a tour look changed.
        // Cover URLs may be signed like media: only where they point counts.
        var detail = detail
        detail.hasAccess = nil
        detail.imageURL = detail.imageURL.map(FileIdentity.location(of:))
        detail.coverTrailerURL = detail.coverTrailerURL.map(FileIdentity.location(of:))
        var hasher = SHA256()
        for part in [
            (try? WalkscapeJSON.encode(detail)) ?? Data(),
            (try? WalkscapeJSON.encode(points.sorted { $0.order < $1.order })) ?? Data(),
            Data(files.utf8),
        ] {
            hasher.update(data: part)
            hasher.update(data: Data([0]))
        }
        return Hex.string(hasher.finalize())
    }
}

import Foundation
import TourModel

/// One installed language of a tour: the version it plays.
public struct InstalledLanguage: Sendable, Hashable {
    public var language: String
    /// The manifest's `version` when it was downloaded.
    public var manifestVersion: String
    /// `TourContent.fingerprint` of what was downloaded.
    public var fingerprint: String
    public var installedAt: Date
    public var detail: TourDetail
    /// In walking order.
    public var points: [TourPoint]
    public var offlineMap: OfflineMap?
    public var files: [InstalledFile]

    public init(
        language: String, manifestVersion: String, fingerprint: String, installedAt: Date, detail: TourDetail,
        points: [TourPoint], offlineMap: OfflineMap?, files: [InstalledFile]
    ) {
        self.language = language
        self.manifestVersion = manifestVersion
        self.fingerprint = fingerprint
        self.installedAt = installedAt
        self.detail = detail
        self.points = points.sorted { $0.order < $1.order }
        self.offlineMap = offlineMap
        self.files = files
    }

    /// The file of `role` for a point, if the version has one.
    public func file(_ role: FileRole, point: String) -> InstalledFile? {
        files.first { $0.role == role && $0.pointID == point }
    }
}

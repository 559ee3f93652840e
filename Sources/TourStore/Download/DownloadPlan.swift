import Foundation
import TourModel

/// What a download of one tour will do, worked out from the service's answers and the store
/// before any byte is fetched: the content of each language, the files missing from the store,
/// and which languages differ from what is installed.
public struct DownloadPlan: Sendable {
    public var tourID: String
    public var slug: String
    public var isProtected: Bool
    /// The service the tour comes from (scheme://host[:port]).
    public var service: String
    /// By language.
    public var contents: [String: TourContent]
    /// When the manifests were fetched (their URLs were signed then).
    public var fetchedAt: Date
    /// Languages whose content differs from the installed version, or is not installed, or whose
    /// blobs are missing.
    public var changedLanguages: [String]
    /// Blobs already in the store, by file identity.
    var known: [FileIdentity: String]
    var transfers: [Transfer]
    /// Bytes of the missing files already in part files from an earlier run.
    public var resumableBytes: Int64

    public var languages: [String] { contents.keys.sorted() }
    public var title: String { (contents["en"] ?? contents.values.first)?.detail.title ?? slug }
    public func title(_ language: String) -> String { contents[language]?.detail.title ?? title }

    /// Nothing to fetch and nothing to switch.
    public var isUpToDate: Bool { changedLanguages.isEmpty && transfers.isEmpty }
    public var filesToFetch: Int { transfers.count }
    public var bytesToFetch: Int64 { transfers.reduce(0) { $0 + $1.identity.size } }
    /// Distinct files of the tour in the languages asked for, and their bytes.
    public var fileCount: Int { known.count + transfers.count }
    public var totalBytes: Int64 { known.keys.reduce(0) { $0 + $1.size } + bytesToFetch }
}

import FileAccess
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where the relative paths of a tour folder lead, checked before anything is read.
///
/// The format says paths may not leave the folder (docs/tour-folder.md), and a tour folder comes
/// from strangers: a download, an archive. So `..` and leading `/` are refused as written, and
/// symbolic links are no way round it either: each path is resolved to its real path, which must
/// lie under the folder's own real path (a link to another file inside is fine). What a path
/// names must then be a regular file: a FIFO would block whoever reads it, a device might never
/// end. Every reader of a tour folder goes through here: the loader, and lint's own pass over a
/// tour the loader refused.
public struct TourFolderPaths: Sendable, Hashable {
    /// Why a path cannot be used, phrased after the path: `media/x.mp3 does not exist`.
    public enum Problem: Error, Sendable, Hashable {
        case empty
        case leavesByName
        case missing
        /// A symbolic link to nothing (where it leads): `missing` to whoever checks the kind.
        case brokenLink(String)
        case outside(realPath: String)
        case notRegular(FileKind)
        case unreadable(String)

        /// The reason, for `path` as the tour names it.
        public func reason(for path: String) -> String {
            switch self {
            case .empty: "must not be empty"
            case .leavesByName: "\(path) must be a path inside the tour folder (no leading / and no ..)"
            case .missing: "\(path) does not exist"
            case .brokenLink(let target): "\(path) is a symbolic link to \(target), which does not exist"
            case .outside(let real): "\(path) leads outside the tour folder (to \(real))"
            case .notRegular(let kind): "\(path) \(kind.refusal)"
            case .unreadable(let reason): "\(path) cannot be read (\(reason))"
            }
        }
    }

    /// The folder as named (standardised): paths handed out are under it, so messages and
    /// listings keep the names the tour uses.
    public let root: URL
    /// The folder's real path, which every file's real path must lie under.
    public let realRoot: String

    public init(root: URL) throws(FileAccessError) {
        self.root = root.standardizedFileURL
        realRoot = try RealPath.resolve(self.root.path)
    }

    /// The regular file at `path` (relative, `/`-separated) inside the folder.
    public func file(_ path: String) throws(Problem) -> URL {
        guard !path.isEmpty else { throw .empty }
        guard !path.hasPrefix("/"), !path.split(separator: "/").contains("..") else { throw .leavesByName }
        let url = root.appendingPathComponent(path)
        let real: String
        do {
            real = try RealPath.resolve(url.path)
        } catch {
            if case .missing = error.cause {
                throw error.brokenLinkTarget.map { .brokenLink($0) } ?? .missing
            }
            if case .system(let code) = error.cause, code == ENOTDIR { throw .missing }
            throw .unreadable(error.reason)
        }
        guard RealPath.isInside(real, folder: realRoot) else { throw .outside(realPath: real) }
        do {
            try InputFile.check(real)
        } catch {
            if case .notRegular(let kind) = error.cause { throw .notRegular(kind) }
            throw .unreadable(error.reason)
        }
        return url
    }

    /// The bytes of `tour.json`, which is held to the same rules.
    public func manifest() throws(TourModelError) -> Data {
        let name = TourFolder.manifestName
        let url: URL
        do {
            url = try file(name)
        } catch {
            switch error {
            case .missing: throw TourModelError(file: root.path, reason: "not a tour folder (no \(name))")
            case .outside(let real):
                throw TourModelError(file: name, reason: "leads outside the tour folder (to \(real))")
            case .notRegular(let kind): throw TourModelError(file: name, reason: kind.refusal)
            case .unreadable(let reason): throw TourModelError(file: name, reason: "cannot be read (\(reason))")
            case .brokenLink(let target):
                throw TourModelError(file: name, reason: "a symbolic link to \(target), which does not exist")
            case .empty, .leavesByName: throw TourModelError(file: name, reason: error.reason(for: name))
            }
        }
        do {
            return try InputFile.contents(of: url.path)
        } catch {
            if case .notRegular(let kind) = error.cause { throw TourModelError(file: name, reason: kind.refusal) }
            throw TourModelError(file: name, reason: "cannot be read (\(error.reason))")
        }
    }
}

import FileAccess
import Foundation
import Walk

/// Walk progress on disk, one file per tour under the state folder (triggering rule 9).
///
/// Every save is atomic (write a sibling, fsync, rename), so a crash or a power cut mid-save leaves
/// the previous progress, never half a file.
///
/// Files are named by the FNV-1a 64 hash of the tour id (`<16 hex digits>.progress.json`): ids come
/// from the service or a tour folder and may hold any character at any length, and two ids must
/// never share a file. The file keeps the full id (`WalkProgress.tourID`) and `load` checks it.
/// Progress saved before names were hashed (the id with unsafe characters replaced by `_`, then
/// `.json`) is found there and moved to its new name the first time the walk is resumed.
public struct ProgressStore: Sendable {
    public let folder: URL

    public init(folder: URL) {
        self.folder = folder
    }

    public func url(forTour tourID: String) -> URL {
        folder.appendingPathComponent("\(FNV1a64.hex(tourID)).progress.json")
    }

    /// The lock a walk of the tour holds while it runs, beside its progress: two walks of one
    /// tour would each save their own progress over the other's, so the second is refused.
    public func lock(forTour tourID: String) -> LockFile {
        LockFile(path: folder.appendingPathComponent("\(FNV1a64.hex(tourID)).lock").path, permissions: 0o644)
    }

    /// Takes a walk's lock, making the state folder first (it may be new, or gone since the walk
    /// began). Taking it again once held does nothing and says `held`.
    /// When the folder cannot be made, the lock's failure says why in the folder's terms (it said
    /// "No such file or directory" for a folder that is a link to nothing, "Not a directory" for a
    /// file in its place).
    public func acquire(_ lock: LockFile) -> LockFile.Acquisition {
        var folderProblem: String?
        if !lock.isHeld {
            do {
                try StateFolder.create(folder)
            } catch {
                folderProblem = Self.folderProblem(folder.path, error)
            }
        }
        let acquisition = lock.tryAcquire(purpose: "walking")
        if case .unavailable = acquisition, let folderProblem { return .unavailable(reason: folderProblem) }
        return acquisition
    }

    /// The folder on the way that is a link to nothing or not a folder, named; else the system's
    /// words. A link that leads somewhere is no problem on the way (one was named a link to
    /// nothing whatever the trouble past it).
    static func folderProblem(_ path: String, _ error: POSIXError) -> String {
        if let (link, target) = FileAccessError.danglingLink(along: path) {
            return "\(link) is a symbolic link to \(target), which does not exist"
        }
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            var info = stat()
            guard stat(prefix, &info) == 0 else { break }
            if info.st_mode & S_IFMT != S_IFDIR { return "\(prefix) is not a folder" }
        }
        return "\(path): \(StateFolder.reason(error))"
    }

    /// Where progress was saved before names were hashed. The rule is kept only to find it.
    func legacyURL(forTour tourID: String) -> URL {
        let safe = String(tourID.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        return folder.appendingPathComponent("\(safe).json")
    }

    public func load(tourID: String) throws(WalkError) -> WalkProgress? {
        let url = url(forTour: tourID)
        if let data = try Self.contents(of: url) {
            let progress = try Self.decode(data, from: url)
            guard progress.tourID == tourID else {
                throw WalkError(
                    "\(url.path) holds the walk of another tour (\(progress.tourID)), not of \(tourID)",
                    remedy: .moveAsideOrStartAgain)
            }
            return progress
        }
        return try migrateLegacy(tourID: tourID, to: url)
    }

    /// Moves progress saved under the old name to the new one, if it is this tour's. The old
    /// names collided (`tour/1` and `tour_1`), so the id inside says whose it is.
    private func migrateLegacy(tourID: String, to url: URL) throws(WalkError) -> WalkProgress? {
        let legacy = legacyURL(forTour: tourID)
        guard let data = try Self.contents(of: legacy) else { return nil }
        let progress = try Self.decode(data, from: legacy)
        guard progress.tourID == tourID else { return nil }  // another tour's walk: its own to move
        // If the folder is read-only for now, the walk resumes from the old file all the same and
        // its first save writes the new one, which is read first from then on.
        _ = rename(legacy.path, url.path)
        return progress
    }

    public func save(_ progress: WalkProgress) throws(WalkError) {
        let url = url(forTour: progress.tourID)
        do {
            try StateFolder.create(folder)
            try AtomicFile.write(try progress.fileData(), to: url.path)
        } catch {
            throw WalkError("cannot save walk progress to \(url.path): \(StateFolder.reason(error))")
        }
    }

    /// Forgets the tour's walk, under its name and under the old one if that is this tour's (or
    /// unreadable, as `--restart` is the way out of an unreadable file).
    public func remove(tourID: String) {
        try? FileManager.default.removeItem(at: url(forTour: tourID))
        let legacy = legacyURL(forTour: tourID)
        if let data = try? Self.contents(of: legacy),
            (try? Self.decode(data, from: legacy))?.tourID ?? tourID == tourID
        {
            try? FileManager.default.removeItem(at: legacy)
        }
    }

    /// The file's bytes; nil when there is no such file (or no such folder).
    /// The saved progress's bytes; nil when there is none. Only a regular file is read
    /// (`InputFile`): a FIFO in its place hung the walk before its first line, and a folder was
    /// "The operation could not be completed".
    private static func contents(of url: URL) throws(WalkError) -> Data? {
        do {
            // A saved walk is a few kB per hundred points: a file far past that is not one, and is
            // not read into memory to find out (a 3 GB file took 8 s and 3 GB).
            var info = stat()
            if stat(url.path, &info) == 0, info.st_size > Self.largest {
                throw WalkError(
                    "cannot read the saved progress in \(url.path): it is \(info.st_size / 1_048_576) MB, more than any saved walk",
                    remedy: .moveAsideOrStartAgain)
            }
            return try InputFile.contents(of: url.path)
        } catch let error as WalkError {
            throw error
        } catch let error as FileAccessError {
            // A link to nothing is not "no saved walk": the walk would write over the link.
            if case .missing = error.cause, error.brokenLinkTarget == nil { return nil }
            if case .system(let code) = error.cause, code == ENOTDIR { return nil }
            throw WalkError(
                "cannot read the saved progress in \(url.path): \(error.reason)", remedy: .moveAsideOrStartAgain)
        } catch {
            throw WalkError("cannot read the saved progress in \(url.path): \(error)", remedy: .moveAsideOrStartAgain)
        }
    }

    /// Larger than any walk's progress (a 10,000-point tour's is about 1 MB).
    static let largest: off_t = 16 * 1_048_576

    private static func decode(_ data: Data, from url: URL) throws(WalkError) -> WalkProgress {
        do {
            return try WalkProgress.decode(fileData: data)
        } catch {
            throw WalkError(
                "the saved progress in \(url.path) is unreadable (\(error.message))", remedy: .startAgain)
        }
    }
}

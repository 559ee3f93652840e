import Foundation

/// Walk progress on disk, one file per tour under the state folder (triggering rule 9).
///
/// Every save is atomic (write a sibling, fsync, rename), so a crash or a power cut mid-save leaves
/// the previous progress, never half a file.
public struct ProgressStore: Sendable {
    public let folder: URL

    public init(folder: URL) {
        self.folder = folder
    }

    public func url(forTour tourID: String) -> URL {
        // Ids come from the service or a tour folder; keep the file name safe whatever they hold.
        let safe = String(tourID.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        return folder.appendingPathComponent("\(safe).json")
    }

    public func load(tourID: String) throws(WalkError) -> WalkProgress? {
        let url = url(forTour: tourID)
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        do {
            return try WalkProgress.decode(fileData: data)
        } catch {
            throw WalkError("the saved progress in \(url.path) is unreadable (\(error.message)); start again with --restart")
        }
    }

    public func save(_ progress: WalkProgress) throws(WalkError) {
        let url = url(forTour: progress.tourID)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try AtomicFile.write(try progress.fileData(), to: url)
        } catch {
            throw WalkError("cannot save walk progress to \(url.path): \(error.localizedDescription)")
        }
    }

    public func remove(tourID: String) {
        try? FileManager.default.removeItem(at: url(forTour: tourID))
    }
}

/// Whole-file replacement that survives a crash at any moment.
enum AtomicFile {
    static func write(_ data: Data, to url: URL) throws {
        let temp = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        let fd = open(temp.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var ok = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let n = Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 { if errno == EINTR { continue }; return false }
                offset += n
            }
            return true
        }
        ok = ok && fsync(fd) == 0
        close(fd)
        guard ok, rename(temp.path, url.path) == 0 else {
            let code = errno
            unlink(temp.path)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }
}

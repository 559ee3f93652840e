import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The server's data folder: created on first use, private to its owner (it holds password hashes
/// and the signing secret).
enum DataDirectory {
    /// Why the folder is too open, or nil: it holds password hashes, e-mail addresses and the
    /// signing secret, so nobody but its owner should read it.
    static func exposure(_ url: URL) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue
        else { return nil }
        guard mode & 0o077 != 0 else { return nil }
        return
            "\(url.path) can be read by \(mode & 0o007 != 0 ? "every user" : "its group") (mode \(String(mode, radix: 8))); it holds password hashes and e-mail addresses: chmod 700 it"
    }

    /// Makes `path` (the database) and its WAL and shared-memory files owner-only (0600), creating
    /// the database empty with that mode when it is not there: SQLite gives the files it creates
    /// beside a database the database's own mode.
    static func restrict(database path: String) throws(ServerError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw ServerError(.unavailable, "\(path): cannot be created (\(String(cString: strerror(errno))))")
        }
        close(fd)
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            guard chmod(file, 0o600) == 0 else {
                throw ServerError(
                    .unavailable, "\(file): cannot be made private (\(String(cString: strerror(errno))))")
            }
        }
    }

    static func prepare(_ url: URL) throws(ServerError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw ServerError(.usage, "\(url.path): is a file, not a data folder")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(
                at: url, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw ServerError(
                .unavailable, "\(url.path): cannot create the data folder (\(error.localizedDescription))")
        }
    }
}

import Foundation
import TourAPI
import TourModel

/// The session's credentials on disk: `credentials.json` in the config folder, mode 0600.
///
/// Replaced atomically: the new content goes to a temporary file created with mode 0600 in the
/// same folder, is flushed to disk, then renamed over the old one, so a reader (or a crash) sees
/// the old pair or the new one, and the tokens are never readable by others, not for a moment.
struct CredentialsFile: CredentialStore {
    let url: URL

    func load() throws(APIError) -> Credentials? {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw APIError(.local, "cannot read \(url.path): \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        let data: Data
        do { data = try handle.readToEnd() ?? Data() } catch {
            throw APIError(.local, "cannot read \(url.path): \(error.localizedDescription)")
        }
        do {
            return try WalkscapeJSON.decoder().decode(Credentials.self, from: data)
        } catch {
            throw APIError(.local, "\(url.path) is damaged: walkscape logout, then walkscape login")
        }
    }

    func save(_ credentials: Credentials) throws(APIError) {
        let folder = url.deletingLastPathComponent()
        let data: Data
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            data = try WalkscapeJSON.encoder().encode(credentials)
        } catch {
            throw APIError(.local, "cannot write \(url.path): \(error.localizedDescription)")
        }
        var template = Array(folder.appendingPathComponent(".credentials.json.XXXXXX").path.utf8CString)
        // mkstemp creates the file exclusively with mode 0600; fchmod pins it whatever the umask.
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw APIError(.local, "cannot write in \(folder.path): \(String(cString: strerror(errno)))") }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var failure: String?
        if fchmod(fd, 0o600) != 0 { failure = String(cString: strerror(errno)) }
        if failure == nil {
            let written = data.withUnsafeBytes { buffer -> Bool in
                var offset = 0
                while offset < buffer.count {
                    let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                    if n < 0 { if errno == EINTR { continue }; return false }
                    offset += n
                }
                return true
            }
            if !written || fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        }
        close(fd)
        if failure == nil, rename(temporary, url.path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw APIError(.local, "cannot write \(url.path): \(failure)")
        }
        // The rename itself must survive a crash too.
        let dir = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 { fsync(dir); close(dir) }
    }

    func remove() throws(APIError) {
        guard unlink(url.path) == 0 || errno == ENOENT else {
            throw APIError(.local, "cannot remove \(url.path): \(String(cString: strerror(errno)))")
        }
    }

    /// Holds an exclusive lock on `credentials.json.lock` beside the file (flock: released by the
    /// kernel if the process dies) while `body` runs. Waits without blocking a thread, up to 30 s.
    func exclusively<T: Sendable>(_ body: @Sendable () async throws(APIError) -> T) async throws(APIError) -> T {
        let lockPath = url.path + ".lock"
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw APIError(.local, "cannot create \(url.deletingLastPathComponent().path): \(error.localizedDescription)")
        }
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw APIError(.local, "cannot open \(lockPath): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let deadline = ContinuousClock.now + .seconds(30)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline else {
                throw APIError(.local, "another walkscape holds \(lockPath); try again")
            }
            do { try await Task.sleep(for: .milliseconds(20)) } catch { throw APIError(.local, "cancelled") }
        }
        defer { flock(fd, LOCK_UN) }
        return try await body()
    }

    /// The file's permission bits, nil when there is no file.
    var permissions: mode_t? {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return nil }
        return info.st_mode & 0o777
    }
}

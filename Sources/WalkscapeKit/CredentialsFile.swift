import FileAccess
import Foundation
import TourAPI
import TourModel

/// The session's credentials on disk: `credentials.json` in the config folder, mode 0600.
///
/// Replaced atomically: the new content goes to a temporary file created with mode 0600 in the
/// same folder, is flushed to disk, then renamed over the old one, so a reader (or a crash) sees
/// the old pair or the new one, and the tokens are never readable by others, not for a moment.
/// A `credentials.json` that is a symbolic link (kept with the walker's dotfiles, say) is followed:
/// the file it points to is read and replaced, and the link stays.
package struct CredentialsFile: CredentialStore {
    package init(url: URL) { self.url = url }

    package let url: URL

    /// The file itself: `url`, or what it links to (also when that is gone, after a logout).
    var file: String {
        var info = stat()
        guard lstat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return url.path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        if realpath(url.path, &buffer) != nil {
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        let count = readlink(url.path, &buffer, Int(PATH_MAX))
        guard count > 0 else { return url.path }
        let target = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return target.hasPrefix("/") ? target : url.deletingLastPathComponent().appendingPathComponent(target).path
    }

    /// More than credentials ever take (two tokens of at most 16 kB, an address, an id).
    static let largest = 256 * 1024

    package func load() throws(APIError) -> Credentials? {
        // Only a regular file (`InputFile`): a FIFO would hang every command, a device stream forever.
        let fd: Int32
        do { fd = try InputFile.open(file) } catch {
            if error.cause == .missing { return nil }
            throw APIError(.local, "cannot read \(url.path): \(error.reason)")
        }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        let data: Data
        do { data = try handle.read(upToCount: Self.largest + 1) ?? Data() } catch {
            throw APIError(.local, "cannot read \(url.path): \(error.localizedDescription)")
        }
        guard data.count <= Self.largest else {
            throw APIError(.local, "\(url.path) is too large to be credentials", remedy: .logOutThenLogIn)
        }
        do {
            return try WalkscapeJSON.decoder().decode(Credentials.self, from: data)
        } catch {
            throw APIError(.local, "\(url.path) is damaged", remedy: .logOutThenLogIn)
        }
    }

    package func save(_ credentials: Credentials) throws(APIError) {
        let folder = url.deletingLastPathComponent()
        let data: Data
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            data = try WalkscapeJSON.encoder().encode(credentials)
        } catch {
            throw APIError(.local, "cannot write \(url.path): \(error.localizedDescription)")
        }
        do {
            try AtomicFile.write(data, to: file, permissions: 0o600)
        } catch {
            throw APIError(.local, "cannot write \(url.path): \(error.reason)")
        }
    }

    /// Removes the tokens (a link to them stays, so the next login writes where it points).
    package func remove() throws(APIError) {
        let file = self.file
        guard unlink(file) == 0 || errno == ENOENT else {
            throw APIError(.local, "cannot remove \(file): \(String(cString: strerror(errno)))")
        }
    }

    /// Holds an exclusive lock on `credentials.json.lock` beside the file (flock: released by the
    /// kernel if the process dies) while `body` runs. Waits without blocking a thread, up to 30 s.
    package func exclusively<T: Sendable>(_ body: @Sendable () async throws(APIError) -> T) async throws(APIError) -> T
    {
        let lockPath = url.path + ".lock"
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw APIError(
                .local, "cannot create \(url.deletingLastPathComponent().path): \(error.localizedDescription)")
        }
        let lock = LockFile(path: lockPath)
        switch await lock.acquire(purpose: "renewing the session", until: .now + .seconds(30)) {
        case .held:
            break
        case .busy:
            if Task.isCancelled { throw APIError(.local, "cancelled") }
            throw APIError(.local, "another walkscape holds \(lockPath); try again")
        case .unavailable(let reason):
            throw APIError(.local, "cannot open \(lockPath): \(reason)")
        }
        defer { lock.release() }
        return try await body()
    }

    /// The file's permission bits, nil when there is no file.
    package var permissions: mode_t? {
        var info = stat()
        guard lstat(file, &info) == 0 else { return nil }
        return info.st_mode & 0o777
    }
}

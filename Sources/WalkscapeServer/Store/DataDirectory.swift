import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The server's data folder: created on first use, private to its owner (it holds password hashes
/// and the signing secret).
enum DataDirectory {
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

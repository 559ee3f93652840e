import FileAccess
import Foundation
import Walk

/// Creating the state folders and saying why a write there failed, in the system's own words
/// ("No space left on device", "Read-only file system"): Foundation's messages for these on Linux
/// are "The operation could not be completed" with a Cocoa error number, which tells a walker
/// nothing.
enum StateFolder {
    /// `mkdir -p`, failing with the errno of the step that failed.
    static func create(_ url: URL) throws(POSIXError) {
        var path = ""
        for component in url.standardizedFileURL.path.split(separator: "/") {
            path += "/" + component
            if mkdir(path, 0o755) != 0 && errno != EEXIST {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        }
        var status = stat()
        guard stat(path, &status) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard status.st_mode & S_IFMT == S_IFDIR else { throw POSIXError(.ENOTDIR) }
    }

    /// The reason in a failure, as `strerror` words it for system errors.
    static func reason(_ error: any Error) -> String {
        if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        if let access = error as? FileAccessError {
            if case .system(let code) = access.cause { return String(cString: strerror(code)) }
            return access.reason
        }
        return error.localizedDescription
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a path really leads once every symbolic link and `.` or `..` in it is resolved: the
/// question "is this file inside that folder?" can only be answered about real paths.
public enum RealPath {
    /// The real path of an existing file or folder.
    public static func resolve(_ path: String) throws(FileAccessError) -> String {
        guard let resolved = realpath(path, nil) else { throw FileAccessError(path: path, errno: errno) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// True when the real path `path` is `folder` itself or lies under it (both real paths).
    public static func isInside(_ path: String, folder: String) -> Bool {
        if folder == "/" { return true }
        return path == folder || path.hasPrefix(folder + "/")
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Bytes an unprivileged writer can still put in the file system holding `folder`.
enum FreeSpace {
    static func available(at folder: URL) -> Int64? {
        var info = statvfs()
        guard statvfs(folder.path, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }
}

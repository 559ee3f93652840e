import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whole-file replacement that survives a crash at any moment: the bytes go into a temporary file
/// beside the target (made exclusively, with the given permission bits whatever the umask),
/// which is synced, renamed over the target, and then the folder is synced so the rename lasts.
/// A reader, or the next run after a power cut, sees the old file or the whole new one.
///
/// This is the rule for small files walkscape keeps for itself (progress, credentials, the
/// anonymous id). A file a user names on the command line goes through `OutputFile`, which
/// follows the same steps and also respects what is at the name (a FIFO, a link, standard output).
public enum AtomicFile {
    /// Replaces the file at `path` with `data`.
    public static func write(_ data: Data, to path: String, permissions: mode_t = 0o600) throws(FileAccessError) {
        let temporary = try writeTemporary(data, beside: path, permissions: permissions)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw FileAccessError(path: path, errno: code)
        }
        Descriptor.syncFolder(folder(of: path))
    }

    /// Creates the file at `path` with `data` only if there is none: the whole file appears at
    /// once, or nothing does. False when something already is at `path` (left as it is): of two
    /// processes creating it at once, exactly one wins.
    public static func create(_ data: Data, at path: String, permissions: mode_t = 0o600) throws(FileAccessError)
        -> Bool
    {
        let temporary = try writeTemporary(data, beside: path, permissions: permissions)
        defer { unlink(temporary) }
        guard link(temporary, path) == 0 else {
            let code = errno
            if code == EEXIST { return false }
            throw FileAccessError(path: path, errno: code)
        }
        Descriptor.syncFolder(folder(of: path))
        return true
    }

    /// A synced temporary file beside `path` holding `data`; its name.
    private static func writeTemporary(_ data: Data, beside path: String, permissions: mode_t) throws(FileAccessError)
        -> String
    {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var template = Array((folder(of: path) + "/." + name + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw FileAccessError(path: path, errno: errno) }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var code: Int32 = 0
        if fchmod(fd, permissions) != 0 { code = errno }
        if code == 0 {
            code = data.withUnsafeBytes { Descriptor.writeAll(fd, $0).error }
        }
        if code == 0, fsync(fd) != 0 { code = errno }
        if close(fd) != 0, code == 0 { code = errno }
        guard code == 0 else {
            unlink(temporary)
            throw FileAccessError(path: path, errno: code)
        }
        return temporary
    }

    static func folder(of path: String) -> String { OutputFile.folder(of: path) }
}

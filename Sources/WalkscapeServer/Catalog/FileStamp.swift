import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What `stat(2)` says about a file, enough to notice an edit without reading it: size, modification
/// time to the nanosecond, and inode (an editor that saves by renaming a new file over the old one).
struct FileStamp: Sendable, Hashable {
    var size: Int64
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int
    var inode: UInt64
    var isRegularFile: Bool

    /// Nil when the file is not there (or cannot be reached). Symlinks are followed.
    static func of(_ path: String) -> FileStamp? {
        // FileManager rather than stat(2): which C module owns `struct stat` varies with the imports,
        // and member import visibility then refuses its fields.
        // `attributesOfItem` describes a link itself: the file it leads to is what is stamped (a
        // link inside the tour folder was refused as "not a regular file").
        guard let a = try? FileManager.default.attributesOfItem(atPath: realPath(path) ?? path),
            let size = (a[.size] as? NSNumber)?.int64Value, let modified = a[.modificationDate] as? Date
        else { return nil }
        let t = modified.timeIntervalSince1970
        let seconds = t.rounded(.down)
        return FileStamp(
            size: size, modifiedSeconds: Int(seconds), modifiedNanoseconds: Int(((t - seconds) * 1e9).rounded()),
            inode: (a[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0,
            isRegularFile: (a[.type] as? FileAttributeType) == .typeRegular)
    }

    var modified: Date {
        Date(timeIntervalSince1970: Double(modifiedSeconds) + Double(modifiedNanoseconds) / 1e9)
    }

    /// A strong validator: changes whenever the bytes can have changed (nginx's recipe, to the nanosecond).
    var etag: String {
        "\"\(String(modifiedSeconds, radix: 16))-\(String(modifiedNanoseconds, radix: 16))-\(String(size, radix: 16))\""
    }
}

/// The real path of a file, symlinks resolved; nil when it does not exist.
func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}

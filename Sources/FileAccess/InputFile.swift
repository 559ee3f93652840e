import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How every file walkscape reads is opened: tour.json, narration, subtitles, images, traces,
/// the configuration file, and the files named on the command line.
///
/// Only regular files are read. A FIFO would block the reader until someone writes to it (lint
/// and preview hung on one), a device could stream forever or act on being opened, and a folder
/// is no file at all; each is refused with what it is. The path is looked at first (stat) so a
/// device is never opened; then it is opened without blocking and looked at again through the
/// open descriptor, which is what is read, so a file swapped in between cannot slip through.
public enum InputFile {
    /// Fails unless `path` names a regular file (through any symbolic links), without opening it.
    public static func check(_ path: String) throws(FileAccessError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw FileAccessError(path: path, errno: errno) }
        let kind = FileKind(mode: info.st_mode)
        guard kind == .regular else { throw FileAccessError(path: path, cause: .notRegular(kind)) }
    }

    /// Opens the regular file at `path` for reading (blocking reads, close-on-exec). The caller
    /// owns the descriptor.
    public static func open(_ path: String) throws(FileAccessError) -> Int32 {
        try check(path)
        let fd = openDescriptor(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw FileAccessError(path: path, errno: errno) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw FileAccessError(path: path, errno: code)
        }
        let kind = FileKind(mode: info.st_mode)
        guard kind == .regular else {
            close(fd)
            throw FileAccessError(path: path, cause: .notRegular(kind))
        }
        // O_NONBLOCK only guarded the open; regular files ignore it, but readers need not know.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// The whole file at `path`.
    public static func contents(of path: String) throws(FileAccessError) -> Data {
        let fd = try open(path)
        defer { close(fd) }
        var info = stat()
        let expected = fstat(fd, &info) == 0 ? max(0, Int(info.st_size)) : 0
        var data = Data(capacity: expected + 1)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                data.append(contentsOf: buffer[0..<n])
            } else if n == 0 {
                return data
            } else if errno != EINTR {
                throw FileAccessError(path: path, errno: errno)
            }
        }
    }

    /// A `FileHandle` on the regular file at `path`, closed when the handle goes.
    public static func handle(_ path: String) throws(FileAccessError) -> FileHandle {
        FileHandle(fileDescriptor: try open(path), closeOnDealloc: true)
    }
}

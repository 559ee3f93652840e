import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file a user names for walkscape to write: `play --output out.wav`, `walk --output`,
/// `map -o map.svg`, or `-` for standard output. One mechanism for every such flag.
///
/// - A regular file, or a name with nothing there yet, is written **atomically**: into a
///   temporary file beside it, synced, then renamed over it. Readers see the old file or the
///   whole new one, and a failure (an undecodable input, a full disk) leaves the old one as it
///   was. A replaced file keeps its permission bits (and, when root writes, its owner).
/// - Anything else (a FIFO, a terminal, /dev/null, a socket's path that opens) is **written
///   through**: opened as it is, never created, truncated or replaced. Renaming over it would
///   swap a device or a FIFO for a plain file, and a FIFO's reader would get nothing.
/// - `-` is standard output, written through.
/// - A **symbolic link** is never replaced: what it points to is written, by the rules above, and
///   the link stays. A link to nothing is refused rather than followed to create its target: that
///   is how a link planted in a shared folder (/tmp) gets root to create or clobber a file of the
///   planter's choosing, and the kernel's guard against it (fs.protected_symlinks) does not cover
///   a rename we would make ourselves. Links are looked through with stat(2), so that guard does
///   apply to following an existing link.
///
/// Nothing is created or changed before `open()`, which callers make lazily, when they have the
/// first bytes: a command that fails earlier leaves the target untouched. `check()` answers
/// "could this be opened?" without side effects, so a command can refuse a bad name up front.
///
/// Only written bytes that are still in our own temporary file can be rewritten (`isSeekable`):
/// a written-through target is a stream.
///
/// Not thread-safe: one writer at a time (a sink's playback thread, or a command).
public final class OutputFile: @unchecked Sendable {
    /// The name as given, used in every message.
    public let name: String

    private enum Plan {
        case standardOutput
        /// Write a temporary file beside `target` and rename it over; `existing` is the file
        /// being replaced, if any.
        case replace(target: String, existing: stat?)
        case through(path: String)
    }

    private enum State {
        case unopened
        case replacing(fd: Int32, temporary: String, target: String)
        case through(fd: Int32, owned: Bool)
        case closed
    }

    private var state = State.unopened
    /// The temporary file while there is one, for `removeTemporaryFile()` from another thread.
    private let temporaryLock = NSLock()
    private var temporaryPath: String?

    public init(_ name: String) {
        self.name = name
    }

    deinit { discard() }

    /// True for `-`, and for any name that leads to what standard output already is (`/dev/stdout`,
    /// or the file the shell redirected it to): a command's own messages must then go elsewhere.
    public var isStandardOutput: Bool {
        if name == "-" { return true }
        var target = stat(), out = stat()
        guard stat(name, &target) == 0, fstat(STDOUT_FILENO, &out) == 0 else { return false }
        return target.st_dev == out.st_dev && target.st_ino == out.st_ino
    }

    /// True once opened, while what was written can still be rewritten in place.
    public var isSeekable: Bool {
        if case .replacing = state { return true }
        return false
    }

    public var isOpen: Bool {
        switch state {
        case .replacing, .through: true
        case .unopened, .closed: false
        }
    }

    /// Fails with the reason if `open()` would fail for what is at the name now (a missing
    /// folder, a folder as the name, a dangling link, no write permission), changing nothing.
    public func check() throws(FileAccessError) {
        switch try plan() {
        case .standardOutput, .through:
            return
        case .replace(let target, _):
            let folder = Self.folder(of: target)
            if access(folder, W_OK) != 0 { throw FileAccessError(path: name, errno: errno) }
        }
    }

    /// Opens the target for writing (see the type's rules). Does nothing when already open.
    public func open() throws(FileAccessError) {
        guard case .unopened = state else { return }
        switch try plan() {
        case .standardOutput:
            state = .through(fd: STDOUT_FILENO, owned: false)
        case .through(let path):
            // No O_CREAT, no O_TRUNC: the thing is used as it is. A FIFO blocks here until its
            // reader comes, as it does for any writer.
            let fd = openDescriptor(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)
            guard fd >= 0 else { throw FileAccessError(path: name, errno: errno) }
            var info = stat()
            if fstat(fd, &info) != 0 || FileKind(mode: info.st_mode) == .regular {
                // It became a regular file since we looked: writing into it unannounced would
                // mix old and new bytes.
                close(fd)
                throw FileAccessError(path: name, cause: .changed)
            }
            state = .through(fd: fd, owned: true)
        case .replace(let target, let existing):
            let (fd, temporary) = try createTemporary(beside: target, like: existing)
            state = .replacing(fd: fd, temporary: temporary, target: target)
            temporaryLock.withLock { temporaryPath = temporary }
        }
    }

    /// Writes all of `bytes`, opening the target first if needed.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(FileAccessError) {
        try open()
        let outcome = Descriptor.writeAll(descriptor, bytes)
        if !outcome.succeeded { throw FileAccessError(path: name, errno: outcome.error) }
    }

    public func write(_ data: Data) throws(FileAccessError) {
        var failure: FileAccessError?
        data.withUnsafeBytes { bytes in
            do throws(FileAccessError) { try write(bytes) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Rewrites bytes already written, at `offset` (only while `isSeekable`).
    public func rewrite(_ data: Data, at offset: Int) throws(FileAccessError) {
        guard case .replacing(let fd, _, _) = state else { throw FileAccessError(path: name, errno: ESPIPE) }
        let outcome = data.withUnsafeBytes { Descriptor.writeAll(fd, $0, at: Int64(offset)) }
        if !outcome.succeeded { throw FileAccessError(path: name, errno: outcome.error) }
    }

    /// Makes what was written final: syncs the temporary file and renames it over the target, or
    /// closes a written-through target. Without a prior `open()` nothing was written and nothing
    /// is touched. On failure the target is left as it was and the temporary file is removed.
    public func commit() throws(FileAccessError) {
        switch state {
        case .unopened, .closed:
            state = .closed
        case .through(let fd, let owned):
            state = .closed
            if owned, close(fd) != 0 { throw FileAccessError(path: name, errno: errno) }
        case .replacing(let fd, let temporary, let target):
            state = .closed
            temporaryLock.withLock { temporaryPath = nil }
            if fsync(fd) != 0 {
                let code = errno
                close(fd)
                unlink(temporary)
                throw FileAccessError(path: name, errno: code)
            }
            if close(fd) != 0 {
                let code = errno
                unlink(temporary)
                throw FileAccessError(path: name, errno: code)
            }
            if rename(temporary, target) != 0 {
                let code = errno
                unlink(temporary)
                throw FileAccessError(path: name, errno: code)
            }
            // The rename itself lasts once the folder is synced too.
            Descriptor.syncFolder(Self.folder(of: target))
        }
    }

    /// Drops what was written: a temporary file is removed and the target stays as it was.
    /// Safe to call at any time, and more than once.
    public func discard() {
        switch state {
        case .replacing(let fd, let temporary, _):
            temporaryLock.withLock { temporaryPath = nil }
            close(fd)
            unlink(temporary)
        case .through(let fd, let owned):
            if owned { close(fd) }
        case .unopened, .closed:
            break
        }
        state = .closed
    }

    /// Removes the temporary file, if there is one, from any thread: for a command interrupted by
    /// a signal, which exits without committing, so the target stays as it was and nothing is
    /// left beside it. Whatever the writer still writes goes to the unlinked file.
    public func removeTemporaryFile() {
        temporaryLock.withLock {
            if let temporaryPath { unlink(temporaryPath) }
            temporaryPath = nil
        }
    }

    // MARK: - Deciding what to do with the name

    private var descriptor: Int32 {
        switch state {
        case .replacing(let fd, _, _), .through(let fd, _): fd
        case .unopened, .closed: -1
        }
    }

    private func plan() throws(FileAccessError) -> Plan {
        if isStandardOutput { return .standardOutput }
        var info = stat()
        guard lstat(name, &info) == 0 else {
            let code = errno
            guard code == ENOENT else { throw FileAccessError(path: name, errno: code) }
            try requireFolder(of: name)
            return .replace(target: name, existing: nil)
        }
        var kind = FileKind(mode: info.st_mode)
        var target = name
        if kind == .symbolicLink {
            guard stat(name, &info) == 0 else {
                let code = errno
                if code == ENOENT { throw FileAccessError(path: name, cause: .danglingLink(Self.linkTarget(name))) }
                throw FileAccessError(path: name, errno: code)
            }
            kind = FileKind(mode: info.st_mode)
            if kind == .regular {
                // Replace the file the link leads to, by its real path, so the rename lands beside
                // it and the link (and any links before it) stay as they are.
                guard let real = Self.realPath(name) else { throw FileAccessError(path: name, errno: errno) }
                var check = stat()
                guard stat(real, &check) == 0, check.st_dev == info.st_dev, check.st_ino == info.st_ino else {
                    throw FileAccessError(path: name, cause: .changed)
                }
                target = real
            }
        }
        switch kind {
        case .regular: return .replace(target: target, existing: info)
        case .folder: throw FileAccessError(path: name, cause: .notRegular(.folder))
        default: return .through(path: name)
        }
    }

    private func requireFolder(of path: String) throws(FileAccessError) {
        let folder = Self.folder(of: path)
        var info = stat()
        guard stat(folder, &info) == 0 else {
            let code = errno
            throw FileAccessError(
                path: name,
                cause: code == ENOENT ? .missingFolder(folder, link: FileAccessError.brokenLink(folder)) : .system(code)
            )
        }
        guard FileKind(mode: info.st_mode) == .folder else { throw FileAccessError(path: name, errno: ENOTDIR) }
    }

    private func createTemporary(beside target: String, like existing: stat?) throws(FileAccessError) -> (Int32, String)
    {
        let folder = Self.folder(of: target)
        // Hidden, recognisable, and short enough for any file name limit.
        let base = String((target.split(separator: "/").last.map(String.init) ?? "output").prefix(100))
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let suffix = String(UInt32.random(in: .min ... .max, using: &generator), radix: 16)
            let temporary = (folder == "/" ? "" : folder) + "/.\(base).\(suffix).part"
            // 0666 less the umask, as for any new file; a replaced file's own mode is set below.
            let fd = openDescriptor(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if fd < 0 {
                if errno == EEXIST { continue }
                throw FileAccessError(path: name, errno: errno)
            }
            if let existing {
                _ = fchmod(fd, existing.st_mode & 0o7777)
                if geteuid() == 0, existing.st_uid != 0 || existing.st_gid != 0 {
                    _ = fchown(fd, existing.st_uid, existing.st_gid)
                    _ = fchmod(fd, existing.st_mode & 0o7777)  // chown clears set-id bits
                }
            }
            return (fd, temporary)
        }
        throw FileAccessError(path: name, errno: EEXIST)
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }

    static func linkTarget(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n >= 0 else { return "?" }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

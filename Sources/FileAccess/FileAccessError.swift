#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a file could not be opened, read or written, in the operating system's own terms where it
/// has some: one line for the person at the terminal, and enough structure for a caller to choose
/// its exit code.
public struct FileAccessError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Cause: Sendable, Hashable {
        /// Nothing at the path (ENOENT).
        case missing
        /// Something other than a regular file where one was needed.
        case notRegular(FileKind)
        /// An output's folder is not there (`link`: where it leads, when it is a link to nothing).
        case missingFolder(String, link: String? = nil)
        /// An output named by a symbolic link that points nowhere.
        case danglingLink(String)
        /// The file changed kind between two looks at it (a race, or a hostile folder).
        case changed
        /// Any other error from the system, by errno.
        case system(Int32)
    }

    /// The path as the user or the tour named it.
    public var path: String
    public var cause: Cause

    public init(path: String, cause: Cause) {
        self.path = path
        self.cause = cause
    }

    /// Where `path` leads when it is a symbolic link that leads nowhere (its cause `.missing`).
    public var brokenLinkTarget: String?

    /// An error from errno; ENOENT becomes `.missing`, and a path that is a link to nothing says
    /// where it leads.
    public init(path: String, errno code: Int32) {
        self.init(path: path, cause: code == ENOENT ? .missing : .system(code))
        if code == ENOENT { brokenLinkTarget = Self.brokenLink(path) }
    }

    /// Where the symbolic link at `path` leads, when it is one; nil otherwise.
    public static func brokenLink(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return nil }
        return OutputFile.linkTarget(path)
    }

    /// The first name on `path`, from its start, that cannot be followed (`stat` fails there), and
    /// why (`errno`): a symbolic link that leads nowhere (ENOENT, or ENOTDIR through a file) or in
    /// a loop (ELOOP), or a name that is not there. Links that can be followed are passed,
    /// however many lie on the way. nil when the whole path can be followed.
    public static func firstUnreachable(along path: String) -> (path: String, errno: Int32)? {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
            var info = stat()
            if stat(prefix, &info) != 0 { return (prefix, errno) }
        }
        return nil
    }

    /// The symbolic link on `path` that leads nowhere, and where it leads: the first name that
    /// cannot be followed, when it is a link (not one in a loop).
    public static func danglingLink(along path: String) -> (path: String, target: String)? {
        guard let (name, code) = firstUnreachable(along: path), code == ENOENT || code == ENOTDIR,
            let target = brokenLink(name)
        else { return nil }
        return (name, target)
    }

    /// The reason alone, without the path: "is a FIFO, not a regular file", "permission denied".
    public var reason: String {
        switch cause {
        case .missing: brokenLinkTarget.map { "a symbolic link to \($0), which does not exist" } ?? "no such file"
        case .notRegular(let kind): kind.refusal
        case .missingFolder(let folder, let link):
            link.map { "the folder \(folder) is a symbolic link to \($0), which does not exist" }
                ?? "the folder \(folder) does not exist"
        case .danglingLink(let target): "a symbolic link to \(target), which does not exist"
        case .changed: "changed while it was being opened"
        case .system(let code): Self.describe(errno: code)
        }
    }

    /// `path: reason`.
    public var message: String { "\(path): \(reason)" }
    public var description: String { message }

    /// strerror(3), in the lower case of the rest of a message ("permission denied").
    static func describe(errno code: Int32) -> String {
        let text = String(cString: strerror(code))
        guard let first = text.first else { return "error \(code)" }
        // "No space left on device" -> "no space left on device"; keep acronyms like "I/O".
        let second = text.dropFirst().first
        return second.map { $0.isUppercase } == true ? text : first.lowercased() + text.dropFirst()
    }
}

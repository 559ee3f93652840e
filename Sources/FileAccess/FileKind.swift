#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a path names, from the `st_mode` of stat(2): a command that expects a file says what it
/// found instead ("is a FIFO, not a regular file"), rather than blocking on it or guessing.
public enum FileKind: Sendable, Hashable {
    case regular, folder, fifo, characterDevice, blockDevice, socket, symbolicLink, unknown

    public init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .folder
        case S_IFIFO: self = .fifo
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        case S_IFSOCK: self = .socket
        case S_IFLNK: self = .symbolicLink
        default: self = .unknown
        }
    }

    /// "a FIFO", "a character device": what a message calls it.
    public var noun: String {
        switch self {
        case .regular: "a regular file"
        case .folder: "a folder"
        case .fifo: "a FIFO"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .socket: "a socket"
        case .symbolicLink: "a symbolic link"
        case .unknown: "not a file"
        }
    }

    /// Why a file of this kind cannot be read as one: "is a FIFO, not a regular file". A folder
    /// keeps the loader's long-standing words, "is a folder, not a file".
    public var refusal: String {
        switch self {
        case .folder: "is a folder, not a file"
        case .unknown: "is not a regular file"
        default: "is \(noun), not a regular file"
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one write loop: write(2) and pwrite(2) may write less than asked, or be interrupted by a
/// signal before writing anything; both mean "go on". Every caller that must write all of its
/// bytes goes through here.
public enum Descriptor {
    /// What `writeAll` managed: how many bytes went out, and the error that stopped it (0 when all
    /// of them did). A write that makes no progress without an error counts as EIO. (`readUpTo`
    /// says the same of the bytes that came in.)
    public struct Outcome: Sendable, Hashable {
        public var written: Int
        public var error: Int32
        public var succeeded: Bool { error == 0 }
    }

    /// Writes all of `bytes` to `fd`: at the file position (or the end, for O_APPEND), or at
    /// `offset` without moving it.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64? = nil) -> Outcome {
        guard let base = bytes.baseAddress else { return Outcome(written: 0, error: 0) }
        var done = 0
        while done < bytes.count {
            let n: Int
            if let offset {
                n = pwrite(fd, base + done, bytes.count - done, off_t(offset + Int64(done)))
            } else {
                n = writeDescriptor(fd, base + done, bytes.count - done)
            }
            if n > 0 {
                done += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return Outcome(written: done, error: n < 0 ? errno : EIO)
            }
        }
        return Outcome(written: done, error: 0)
    }

    /// Fills `buffer` from `fd` at `offset` without moving the file position, reading again after
    /// a short read or an interruption. 0 when every byte was read; the error otherwise, EIO when
    /// the file ends first.
    public static func readAll(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int32 {
        let outcome = readUpTo(fd, into: buffer, at: offset)
        guard outcome.succeeded else { return outcome.error }
        return outcome.written == buffer.count ? 0 : EIO
    }

    /// The one read loop: fills `buffer` from `fd` at `offset` (pread(2), the file position left
    /// alone) until it is full or the file ends, reading again after a short read or an
    /// interruption. `written` is how many bytes came (fewer at the end of the file).
    public static func readUpTo(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Outcome {
        guard let base = buffer.baseAddress else { return Outcome(written: 0, error: 0) }
        var done = 0
        while done < buffer.count {
            let n = pread(fd, base + done, buffer.count - done, off_t(offset + Int64(done)))
            if n > 0 {
                done += n
            } else if n == 0 {
                break
            } else if errno != EINTR {
                return Outcome(written: done, error: errno)
            }
        }
        return Outcome(written: done, error: 0)
    }

    /// `writeAll` of an array's or a string's bytes.
    public static func writeAll(_ fd: Int32, _ bytes: some Sequence<UInt8>, at offset: Int64? = nil) -> Outcome {
        let array = Array(bytes)
        return array.withUnsafeBytes { writeAll(fd, $0, at: offset) }
    }

    /// Syncs a folder, so that a rename or a link in it lasts. Says the error (0 when synced):
    /// most callers go on regardless (some file systems refuse to sync a folder, and the file
    /// itself is synced already); the content store does not.
    @discardableResult
    public static func syncFolder(_ path: String) -> Int32 {
        let folder = openDescriptor(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return errno }
        defer { close(folder) }
        return fsync(folder) == 0 ? 0 : errno
    }
}

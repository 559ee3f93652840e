#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension StoreError {
    /// A failed system call on `path`, in the system's words; a full disk, a quota or a file size
    /// limit is `noSpace`, so the command can say what to do about it.
    static func system(_ code: Int32, _ doing: String, _ path: String) -> StoreError {
        let reason = String(cString: strerror(code))
        switch code {
        case ENOSPC, EDQUOT, EFBIG:
            return StoreError(
                .noSpace,
                "cannot \(doing) \(path): \(reason); free some space and run the command again (what was downloaded is kept)"
            )
        default:
            return StoreError(.io, "cannot \(doing) \(path): \(reason)")
        }
    }
}

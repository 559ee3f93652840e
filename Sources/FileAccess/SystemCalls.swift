#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// open(2) and write(2) under names of their own, reachable from inside types that have an
// `open` or a `write` of their own.

func openDescriptor(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    open(path, flags, mode)
}

func writeDescriptor(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, bytes, count)
}

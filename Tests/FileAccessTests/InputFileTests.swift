import FileAccess
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Reading only regular files, and never blocking on the way to finding out.
struct InputFileTests {
    @Test func aRegularFileIsReadWhole() throws {
        let dir = try TemporaryDirectory()
        let text = String(repeating: "walkscape ", count: 20_000)
        let url = try dir.write("big.txt", text)
        #expect(try InputFile.contents(of: url.path) == Data(text.utf8))
    }

    @Test func aLinkToARegularFileIsFollowed() throws {
        let dir = try TemporaryDirectory()
        try dir.write("real.txt", "hello")
        try FileManager.default.createSymbolicLink(atPath: dir.file("link.txt").path, withDestinationPath: "real.txt")
        #expect(try InputFile.contents(of: dir.file("link.txt").path) == Data("hello".utf8))
    }

    /// A FIFO without a writer: opening it for reading would block for ever. The refusal must come
    /// at once, so the test would hang (and the suite time out) if it did not.
    @Test func aFIFOIsRefusedWithoutBlocking() throws {
        let dir = try TemporaryDirectory()
        let fifo = dir.file("pipe")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        #expect(throws: FileAccessError(path: fifo.path, cause: .notRegular(.fifo))) { try InputFile.open(fifo.path) }
        #expect(throws: FileAccessError(path: fifo.path, cause: .notRegular(.fifo))) {
            try InputFile.contents(of: fifo.path)
        }
        #expect(
            FileAccessError(path: fifo.path, cause: .notRegular(.fifo)).message
                == "\(fifo.path): is a FIFO, not a regular file")
    }

    @Test func devicesAndFoldersAreRefusedAsWhatTheyAre() throws {
        let dir = try TemporaryDirectory()
        #expect(throws: FileAccessError(path: "/dev/null", cause: .notRegular(.characterDevice))) {
            try InputFile.check("/dev/null")
        }
        #expect(throws: FileAccessError(path: dir.path, cause: .notRegular(.folder))) { try InputFile.open(dir.path) }
        #expect(FileAccessError(path: "x", cause: .notRegular(.folder)).reason == "is a folder, not a file")
    }

    @Test func aMissingFileSaysSo() throws {
        let dir = try TemporaryDirectory()
        #expect(throws: FileAccessError(path: dir.file("no").path, cause: .missing)) {
            try InputFile.open(dir.file("no").path)
        }
        #expect(FileAccessError(path: "x", cause: .missing).message == "x: no such file")
    }

    @Test func theDescriptorBlocksAgainForReading() throws {
        let dir = try TemporaryDirectory()
        let url = try dir.write("a.txt", "a")
        let fd = try InputFile.open(url.path)
        defer { close(fd) }
        #expect(fcntl(fd, F_GETFL) & O_NONBLOCK == 0)
        #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
    }
}

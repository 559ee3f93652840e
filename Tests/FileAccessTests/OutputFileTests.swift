import FileAccess
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Writing where a user points: atomically over files, through anything else, never over a link.
struct OutputFileTests {
    static func kind(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    @Test func nothingIsTouchedUntilOpened() throws {
        let dir = try TemporaryDirectory()
        let url = try dir.write("keep.txt", "precious")
        let output = OutputFile(url.path)
        try output.check()
        try output.commit()
        #expect(try String(contentsOf: url, encoding: .utf8) == "precious")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["keep.txt"])
    }

    @Test func aRegularFileIsReplacedOnlyAtCommit() throws {
        let dir = try TemporaryDirectory()
        let url = try dir.write("out.txt", "old")
        let output = OutputFile(url.path)
        try output.write(Data("new and longer".utf8))
        #expect(output.isSeekable)
        #expect(try String(contentsOf: url, encoding: .utf8) == "old")  // readers still see the old file
        try output.rewrite(Data("NEW".utf8), at: 0)
        try output.commit()
        #expect(try String(contentsOf: url, encoding: .utf8) == "NEW and longer")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.txt"])
    }

    @Test func discardingLeavesTheOldFileAndNoTemporary() throws {
        let dir = try TemporaryDirectory()
        let url = try dir.write("out.txt", "old")
        let output = OutputFile(url.path)
        try output.write(Data("half".utf8))
        output.discard()
        #expect(try String(contentsOf: url, encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.txt"])
    }

    @Test func aNewFileGetsTheUsualPermissions() throws {
        let dir = try TemporaryDirectory()
        let mask = umask(0o022)
        defer { umask(mask) }
        let output = OutputFile(dir.file("new.txt").path)
        try output.write(Data("x".utf8))
        try output.commit()
        var info = stat()
        #expect(stat(dir.file("new.txt").path, &info) == 0 && info.st_mode & 0o777 == 0o644)
    }

    @Test func aLinkStaysALinkAndItsTargetIsReplaced() throws {
        let dir = try TemporaryDirectory()
        try dir.write("data/real.txt", "old")
        try FileManager.default.createSymbolicLink(
            atPath: dir.file("link.txt").path, withDestinationPath: "data/real.txt")
        let output = OutputFile(dir.file("link.txt").path)
        try output.write(Data("new".utf8))
        try output.commit()
        #expect(Self.kind(dir.file("link.txt").path) == S_IFLNK)
        #expect(try String(contentsOf: dir.file("data/real.txt"), encoding: .utf8) == "new")
    }

    @Test func aDanglingLinkIsRefusedAndNothingIsCreated() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createSymbolicLink(
            atPath: dir.file("link.txt").path, withDestinationPath: "made/up.txt")
        let output = OutputFile(dir.file("link.txt").path)
        #expect(throws: FileAccessError(path: dir.file("link.txt").path, cause: .danglingLink("made/up.txt"))) {
            try output.check()
        }
        #expect(throws: FileAccessError.self) { try output.write(Data("x".utf8)) }
        #expect(!FileManager.default.fileExists(atPath: dir.file("made").path))
    }

    @Test func aFIFOIsWrittenThrough() throws {
        let dir = try TemporaryDirectory()
        let fifo = dir.file("pipe")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        // A reader first (non-blocking, so the test's own open cannot hang), then the writer.
        let reader = open(fifo.path, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let output = OutputFile(fifo.path)
        try output.write(Data("through".utf8))
        #expect(!output.isSeekable)
        try output.commit()
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(reader, &buffer, buffer.count)
        #expect(n == 7 && String(decoding: buffer[0..<max(0, n)], as: UTF8.self) == "through")
        #expect(Self.kind(fifo.path) == S_IFIFO)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["pipe"])
    }

    @Test func devNullIsWrittenThroughAndStaysADevice() throws {
        let output = OutputFile("/dev/null")
        try output.write(Data("nothing".utf8))
        try output.commit()
        #expect(Self.kind("/dev/null") == S_IFCHR)
    }

    @Test func aMissingFolderAndAFolderAsTheNameAreRefusedWithTheReason() throws {
        let dir = try TemporaryDirectory()
        #expect(
            FileAccessError(path: "/nonexistent/x.wav", cause: .missingFolder("/nonexistent")).message
                == "/nonexistent/x.wav: the folder /nonexistent does not exist")
        #expect(throws: FileAccessError(path: "/nonexistent/x.wav", cause: .missingFolder("/nonexistent"))) {
            try OutputFile("/nonexistent/x.wav").check()
        }
        #expect(throws: FileAccessError(path: dir.path, cause: .notRegular(.folder))) {
            try OutputFile(dir.path).check()
        }
    }
}

import FileAccess
import Foundation
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The one home of atomic replacement, lock files and the write loop.
struct AtomicFileTests {
    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    @Test func replacesWholeWithTheGivenBitsWhateverTheUmaskAndLeavesNothingBeside() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("progress.json").path
        let old = umask(0)
        defer { umask(old) }
        try AtomicFile.write(Data("first".utf8), to: path)
        #expect(Self.mode(path) == 0o600)
        try AtomicFile.write(Data("second, longer".utf8), to: path, permissions: 0o644)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "second, longer")
        #expect(Self.mode(path) == 0o644)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["progress.json"])
    }

    @Test func aFailedReplaceKeepsTheOldFileAndNamesThePath() throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("id", "old").path
        // A folder where the temporary file cannot be made.
        #expect(throws: FileAccessError.self) { try AtomicFile.write(Data("x".utf8), to: dir.file("missing/id").path) }
        do {
            try AtomicFile.write(Data("x".utf8), to: dir.file("missing/id").path)
        } catch {
            #expect(error.path == dir.file("missing/id").path)
            #expect(error.reason == "no such file")
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
    }

    @Test func createWritesOnlyWhenNothingIsThereAndOneOfManyWins() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("anonymous-id").path
        #expect(try AtomicFile.create(Data("a".utf8), at: path))
        #expect(try !AtomicFile.create(Data("b".utf8), at: path))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "a")

        let race = dir.file("race").path
        let wins = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<16 { group.addTask { (try? AtomicFile.create(Data("\(i)".utf8), at: race)) ?? false } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["anonymous-id", "race"])
    }

    @Test func writeAllGoesOnAfterShortWritesAndReportsWhatWentOut() async throws {
        // A pipe takes at most its buffer at a time: a large write is cut short and must go on.
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let size = 1 << 20
        let readEnd = ends[0]
        // The reader is a thread of its own, not a task: the write below blocks this thread of the
        // cooperative pool until the reader takes the bytes, and a reader waiting for the pool's
        // other thread (busy with another test's wait) stopped the whole suite once.
        let total = Mutex(0)
        let read = DispatchSemaphore(value: 0)
        Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = Glibc.read(readEnd, &buffer, buffer.count)
                if n <= 0 { break }
                total.withLock { $0 += n }
            }
            close(readEnd)
            read.signal()
        }.start()
        let outcome = Descriptor.writeAll(ends[1], [UInt8](repeating: 7, count: size))
        close(ends[1])
        #expect(outcome.written == size && outcome.error == 0)
        #expect(outcome.succeeded)
        // A closed descriptor: nothing written, and the reason.
        let bad = Descriptor.writeAll(ends[1], [1, 2, 3])
        #expect(bad.written == 0 && bad.error == EBADF)
        read.wait()
        #expect(total.withLock { $0 } == size)
    }

    @Test func writeAllAtAnOffsetLeavesThePositionAlone() throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("f", "0123456789").path
        let fd = open(path, O_RDWR)
        defer { close(fd) }
        #expect(Descriptor.writeAll(fd, Array("ab".utf8), at: 4).succeeded)
        #expect(Descriptor.writeAll(fd, Array("XY".utf8)).succeeded)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "XY23ab6789")
    }

    @Test func readAllFillsTheBufferFromAnOffsetAndSaysWhenTheFileEndsFirst() throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("f", "0123456789").path
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(buffer.withUnsafeMutableBytes { Descriptor.readAll(fd, into: $0, at: 3) } == 0)
        #expect(String(decoding: buffer, as: UTF8.self) == "3456")
        #expect(lseek(fd, 0, SEEK_CUR) == 0, "the position moved")
        #expect(buffer.withUnsafeMutableBytes { Descriptor.readAll(fd, into: $0, at: 8) } == EIO)
        #expect(buffer.withUnsafeMutableBytes { Descriptor.readAll(-1, into: $0, at: 0) } == EBADF)
    }
}

struct LockFileTests {
    @Test func oneHolderAtATimeWhoIsToldTheHoldersPIDAndPurpose() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("store.lock").path
        let first = LockFile(path: path), second = LockFile(path: path)
        #expect(first.tryAcquire(purpose: "download demo") == .held)
        #expect(first.isHeld)
        #expect(second.tryAcquire() == .busy(.init(pid: getpid(), purpose: "download demo")))
        #expect(!second.isHeld)
        first.release()
        first.release()  // twice: nothing
        #expect(second.tryAcquire() == .held)
    }

    @Test func waitingGetsTheLockWhenItsHolderLetsGoOrGivesUpAtTheDeadline() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("send.lock").path
        let holder = LockFile(path: path), waiter = LockFile(path: path)
        #expect(holder.tryAcquire(purpose: "sync") == .held)
        let gaveUp = await waiter.acquire(until: .now + .milliseconds(100), interval: .milliseconds(10))
        #expect(gaveUp == .busy(.init(pid: getpid(), purpose: "sync")))
        let waiting = Task { await waiter.acquire(until: .now + .seconds(20), interval: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(50))
        holder.release()
        #expect(await waiting.value == .held)
    }

    /// The same wait, blocking the thread (for synchronous code): it gives up at the deadline, and
    /// gets the lock once its holder lets go.
    @Test func waitingOnTheThreadGetsTheLockWhenItsHolderLetsGoOrGivesUpAtTheDeadline() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("open.lock").path
        let holder = LockFile(path: path), waiter = LockFile(path: path)
        #expect(holder.tryAcquire(purpose: "opening") == .held)
        let asked = ContinuousClock.now
        #expect(
            waiter.acquireBlocking(until: .now + .milliseconds(100)) == .busy(.init(pid: getpid(), purpose: "opening")))
        #expect(ContinuousClock.now - asked >= .milliseconds(100))
        let letGo = Thread {
            Thread.sleep(forTimeInterval: 0.05)
            holder.release()
        }
        letGo.start()
        #expect(waiter.acquireBlocking(until: .now + .seconds(20)) == .held)
    }

    @Test func aLockFileThatCannotBeMadeIsUnavailableWithTheReason() throws {
        let dir = try TemporaryDirectory()
        try dir.write("state", "a file where a folder should be")
        let lock = LockFile(path: dir.file("state/x.lock").path)
        #expect(lock.tryAcquire() == .unavailable(reason: "Not a directory"))
    }

    @Test func aReadOnlyLockFileStillExcludes() throws {
        guard geteuid() != 0 else { return }  // root writes anyway
        let dir = try TemporaryDirectory()
        let path = try dir.write("ro.lock", "").path
        chmod(path, 0o444)
        let first = LockFile(path: path), second = LockFile(path: path)
        #expect(first.tryAcquire() == .held)
        #expect(second.tryAcquire() == .busy(nil))
    }
}

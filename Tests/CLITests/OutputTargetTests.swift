import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Where `--output` and `map -o` write: a regular file (or a new one) is replaced atomically,
/// anything else (a FIFO, a terminal, a device, stdout as `-`) is written through and left what it
/// was, a symbolic link stays a link, and nothing is touched before there is something to write.
/// No test writes to a device of the machine it runs on other than /dev/null, a pty it owns and
/// FIFOs it makes.
@Suite("output targets", .serialized)
struct OutputTargetTests {
    /// Reads a FIFO on a thread of its own, as a consumer would, until the writer closes it.
    final class FIFOReader: @unchecked Sendable {
        let path: String
        private let done = DispatchSemaphore(value: 0)
        private var data = Data()

        init(path: String) {
            self.path = path
            Thread { [self] in
                let fd = open(path, O_RDONLY)
                if fd >= 0 {
                    var buffer = [UInt8](repeating: 0, count: 65536)
                    while true {
                        let n = read(fd, &buffer, buffer.count)
                        if n <= 0 { break }
                        data.append(contentsOf: buffer[0..<n])
                    }
                    close(fd)
                }
                done.signal()
            }.start()
        }

        /// What arrived. If no writer ever came, the reader's blocked open is released by a
        /// writer of our own that writes nothing, so the test ends with "nothing arrived".
        func finish() -> Data {
            if done.wait(timeout: .now() + 5) == .timedOut {
                let fd = open(path, O_WRONLY | O_NONBLOCK)
                if fd >= 0 { close(fd) }
                _ = done.wait(timeout: .now() + 5)
            }
            return data
        }
    }

    /// Bytes a reader thread collects, read by the test.
    final class Received: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        func append(_ bytes: ArraySlice<UInt8>) { lock.withLock { data.append(contentsOf: bytes) } }
        var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
    }

    static func makeFIFO(_ url: URL) throws {
        guard mkfifo(url.path, 0o644) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    static func kind(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT
    }

    func map(_ output: String, home: TemporaryDirectory) throws -> ProcessResult {
        try runWalkscape(["map", "tours/demo", "-o", output], home: home, timeout: 60)
    }

    // MARK: map -o

    @Test("map -o FIFO: the reader gets the SVG, and the FIFO is still a FIFO")
    func mapToFIFO() throws {
        let dir = try TemporaryDirectory()
        let fifo = dir.file("map.svg")
        try Self.makeFIFO(fifo)
        let reader = FIFOReader(path: fifo.path)
        let result = try map(fifo.path, home: dir)
        let received = reader.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(decoding: received, as: UTF8.self).hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg"))
        #expect(String(decoding: received, as: UTF8.self).hasSuffix("</svg>\n"))
        #expect(Self.kind(fifo.path) == S_IFIFO)
    }

    @Test("map -o a terminal (a pty's other side): written through, still a character device")
    func mapToTerminal() throws {
        let dir = try TemporaryDirectory()
        let (master, slave) = try PseudoTerminal.open()
        defer { close(master); close(slave) }
        var raw = termios()
        tcgetattr(slave, &raw)
        cfmakeraw(&raw)
        tcsetattr(slave, TCSANOW, &raw)
        let path = PseudoTerminal.name(of: master)
        let received = Received()
        let complete: @Sendable () -> Bool = { received.text.hasSuffix("</svg>\n") }
        // Polls rather than blocks, so the reader ends by the deadline even if nothing comes.
        let deadline = Date().addingTimeInterval(60)
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            while Date() < deadline, !complete() {
                guard poll(&poller, 1, 100) > 0 else { continue }
                let n = read(master, &buffer, buffer.count)
                if n <= 0 { break }
                received.append(buffer[0..<n])
            }
        }
        reader.start()
        let result = try map(path, home: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let settle = Date().addingTimeInterval(5)
        while Date() < settle, !complete() { usleep(10_000) }
        #expect(received.text.hasPrefix("<?xml"))
        #expect(complete())
        #expect(Self.kind(path) == S_IFCHR)
    }

    @Test("map -o /dev/null: accepted, and /dev/null is still the character device")
    func mapToDevNull() throws {
        let dir = try TemporaryDirectory()
        let result = try map("/dev/null", home: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.kind("/dev/null") == S_IFCHR)
    }

    @Test("map -o LINK: the file the link points to gets the SVG; the link stays a link")
    func mapThroughSymlink() throws {
        let dir = try TemporaryDirectory()
        try dir.write("maps/old.svg", "old")
        try FileManager.default.createSymbolicLink(
            atPath: dir.file("latest.svg").path, withDestinationPath: "maps/old.svg")
        let result = try map(dir.file("latest.svg").path, home: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.kind(dir.file("latest.svg").path) == S_IFLNK)
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: dir.file("latest.svg").path) == "maps/old.svg")
        #expect(try String(contentsOf: dir.file("maps/old.svg"), encoding: .utf8).hasPrefix("<?xml"))
        // Nothing else was left in either folder (no temporary files).
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("maps").path) == ["old.svg"])
    }

    @Test("map -o a dangling link: refused with the reason, and nothing is created")
    func mapThroughDanglingSymlink() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createSymbolicLink(
            atPath: dir.file("map.svg").path, withDestinationPath: "nowhere/map.svg")
        let result = try map(dir.file("map.svg").path, home: dir)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "walkscape: \(dir.file("map.svg").path): cannot write (a symbolic link to nowhere/map.svg, which does not exist)\n"
        )
    }

    @Test("map -o into a folder that is a link to nothing: the link is named")
    func mapIntoADanglingFolderLink() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: dir.file("maps").path, withDestinationPath: "nowhere")
        let result = try map(dir.file("maps/m.svg").path, home: dir)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "walkscape: \(dir.file("maps/m.svg").path): cannot write (the folder \(dir.file("maps").path) is a symbolic link to nowhere, which does not exist)\n",
            "\(result.stderr)")
    }

    @Test("map -o -: the SVG goes to standard output, and nothing else does")
    func mapToStandardOutput() throws {
        let dir = try TemporaryDirectory()
        let result = try map("-", home: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg"))
        #expect(result.stdout.hasSuffix("</svg>\n"))
        #expect(!FileManager.default.fileExists(atPath: TestPaths.packageRoot.appendingPathComponent("-").path))
    }

    @Test("--json to a full disk (/dev/full): one line says the output was lost, exit 1")
    func outputThatCannotBeWrittenFailsTheCommand() throws {
        let dir = try TemporaryDirectory()
        let walkscape = TestPaths.walkscape.path
        for command in ["lint tours/demo --json", "lint tours/demo", "tours --installed --json"] {
            let result = try run(
                URL(fileURLWithPath: "/bin/sh"), ["-c", "exec \(walkscape) \(command) > /dev/full"],
                environment: ["WALKSCAPE_HOME": dir.path, "NO_COLOR": "1"], currentDirectory: TestPaths.packageRoot,
                timeout: 60)
            #expect(result.status == 1, "\(command): \(result.stderr)")
            #expect(result.stderr == "walkscape: cannot write the output (no space left on device)\n", "\(command)")
        }
    }

    @Test("play --output /dev/full: the write failure is said once, exit 1")
    func playToAFullDiskSaysSoOnce() throws {
        let dir = try TemporaryDirectory()
        let result = try runWalkscape(
            ["play", "tours/demo/media/en/04.mp3", "--output", "/dev/full"], home: dir, timeout: 60)
        #expect(result.status == 1)
        #expect(result.stderr == "walkscape: /dev/full: cannot write (no space left on device)\n", "\(result.stderr)")
    }

    @Test("map -o into a folder that does not exist: the one-line error says so")
    func mapIntoMissingFolder() throws {
        let dir = try TemporaryDirectory()
        let result = try map("/nonexistent/map.svg", home: dir)
        #expect(result.status == 1)
        #expect(
            result.stderr == "walkscape: /nonexistent/map.svg: cannot write (the folder /nonexistent does not exist)\n")
    }

    @Test("map -o an existing file: replaced whole, keeping its permissions; nothing left beside it")
    func mapReplacesARegularFile() throws {
        let dir = try TemporaryDirectory()
        let out = try dir.write("map.svg", "old")
        #expect(chmod(out.path, 0o640) == 0)
        let result = try map(out.path, home: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOf: out, encoding: .utf8).hasSuffix("</svg>\n"))
        var info = stat()
        #expect(stat(out.path, &info) == 0 && info.st_mode & 0o777 == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["map.svg"])
    }

    @Test("map with a trace that cannot be read, or a tour that does not load: the existing output is untouched")
    func mapFailureLeavesTheOutput() throws {
        let dir = try TemporaryDirectory()
        let out = try dir.write("map.svg", "precious")
        let badTrace = try dir.write("bad.nmea", "this is no trace\n")
        let trace = try runWalkscape(["map", "tours/demo", "--trace", badTrace.path, "-o", out.path], home: dir)
        #expect(trace.status == 65)
        let tour = try runWalkscape(["map", dir.path, "-o", out.path], home: dir)
        #expect(tour.status == 64)
        #expect(try String(contentsOf: out, encoding: .utf8) == "precious")
    }

    // MARK: play --output, walk --output

    /// A tone in the output's own format (stereo, 44.1 kHz): every frame passes unconverted.
    static func stereoTone() throws -> FixtureAudio.Fixture {
        try FixtureAudio.tone(frames: 12_345, sampleRate: 44100, channels: 2)
    }

    @Test("play --output FIFO: a streaming WAV (sizes 0xFFFFFFFF) with every sample, read as it is written")
    func playToFIFO() throws {
        let a = try Self.stereoTone()
        let dir = try TemporaryDirectory()
        let fifo = dir.file("out.wav")
        try Self.makeFIFO(fifo)
        let reader = FIFOReader(path: fifo.path)
        let result = try runWalkscape(["play", a.mp3.path, "--output", fifo.path], home: dir, timeout: 60)
        let received = reader.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(received.count == 44 + a.frames * 4)
        guard received.count >= 44 else { return }
        #expect(Array(received[4..<8]) == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(Array(received[40..<44]) == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(Self.kind(fifo.path) == S_IFIFO)
    }

    @Test("play --output -: the WAV goes to standard output, the cues to standard error")
    func playToStandardOutput() throws {
        let a = try Self.stereoTone()
        let dir = try TemporaryDirectory()
        let result = try runWalkscape(["play", a.mp3.path, "--output", "-"], home: dir, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutData.count == 44 + a.frames * 4)
        #expect(result.stdoutData.prefix(4) == Data("RIFF".utf8))
        #expect(result.stderr == "▶ \(a.mp3.path)\n")
    }

    @Test("play --output a regular file: the header carries the real sizes")
    func playToAFileHasExactSizes() throws {
        let a = try Self.stereoTone()
        let dir = try TemporaryDirectory()
        let out = try dir.write("out.wav", "old")
        let home = try TemporaryDirectory()
        let result = try runWalkscape(["play", a.mp3.path, "--output", out.path], home: home, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let data = try Data(contentsOf: out)
        #expect(data.count == 44 + a.frames * 4)
        #expect(
            data[40..<44].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) } == UInt32(a.frames * 4).littleEndian)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["out.wav"])
    }

    @Test("play --output into a folder that does not exist: says so before playing anything")
    func playIntoMissingFolder() throws {
        let a = try FixtureAudio.tone(frames: 12_345)
        let dir = try TemporaryDirectory()
        let result = try runWalkscape(["play", a.mp3.path, "--output", "/nonexistent/x.wav"], home: dir, timeout: 60)
        #expect(result.status == 1)
        #expect(
            result.stderr == "walkscape: /nonexistent/x.wav: cannot write (the folder /nonexistent does not exist)\n")
        #expect(result.stdout == "")
    }

    @Test("play of a file that cannot be decoded leaves an existing --output as it was")
    func undecodableLeavesTheOutput() throws {
        let dir = try TemporaryDirectory()
        let out = try dir.write("existing.wav", "precious")
        let fake = try dir.write("fake.mp3", "this is not audio at all, just text that goes on for a while")
        let result = try runWalkscape(["play", fake.path, "--output", out.path], home: dir, timeout: 60)
        #expect(result.status == 65)
        #expect(try String(contentsOf: out, encoding: .utf8) == "precious")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["existing.wav", "fake.mp3"])
    }

    @Test("play --output stopped by SIGTERM mid-file: the old file stays, and nothing is left beside it")
    func interruptedPlayLeavesNothingBehind() throws {
        let a = try FixtureAudio.tone(seconds: 1)
        let dir = try TemporaryDirectory()
        let out = try dir.write("out.wav", "precious")
        // 3,000 cues at the very start: their lines fill the pipe nobody reads, so play stops there
        // with its WAV written to the temporary file and not yet renamed.
        var srt = ""
        for i in 1...3000 {
            srt += "\(i)\n00:00:00,000 --> 00:00:00,500\nA cue long enough to fill a pipe before long.\n\n"
        }
        let subtitles = try dir.write("many.srt", srt)
        let process = Process()
        process.executableURL = TestPaths.walkscape
        process.arguments = [
            "play", a.mp3.path, "--subtitles", subtitles.path, "--output", out.path, "--home", dir.path,
        ]
        let unread = Pipe()
        process.standardOutput = unread
        process.standardError = FileHandle.nullDevice
        try process.run()
        func temporaries() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter {
                $0.hasPrefix(".out.wav.")
            }
        }
        let deadline = Date().addingTimeInterval(30)
        while temporaries().isEmpty, process.isRunning, Date() < deadline { usleep(10_000) }
        #expect(!temporaries().isEmpty, "no temporary file while writing")
        kill(process.processIdentifier, SIGTERM)
        // Bounded: a play that ignored the signal, wedged on the pipe nobody reads, would
        // otherwise hold this test, and the suite, for good.
        let ending = Date().addingTimeInterval(30)
        while process.isRunning, Date() < ending { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            Issue.record("play was still running 30 s after SIGTERM")
        }
        process.waitUntilExit()
        #expect(process.terminationStatus == 143)
        #expect(try String(contentsOf: out, encoding: .utf8) == "precious")
        #expect(temporaries().isEmpty)
    }

    @Test("walk --output when the tour does not load: the existing output is untouched")
    func walkFailureLeavesTheOutput() throws {
        let dir = try TemporaryDirectory()
        let out = try dir.write("existing.wav", "precious")
        let result = try runWalkscape(["walk", dir.path, "--output", out.path, "--no-input"], home: dir, timeout: 60)
        #expect(result.status == 64)
        #expect(try String(contentsOf: out, encoding: .utf8) == "precious")
    }
}

import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A FIFO or a device where a file should be: every command refuses it at once with its real
/// reason, never opening it for reading (which blocks on a FIFO until someone writes). Each run
/// has a timeout, so a command that blocks fails the test instead of hanging the suite.
@Suite("files that are not regular files", .serialized)
struct NonRegularFileTests {
    static let timeout = 20.0

    static func makeFIFO(_ url: URL) throws {
        try? FileManager.default.removeItem(at: url)
        guard mkfifo(url.path, 0o644) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    func walkscape(_ arguments: [String], home: TemporaryDirectory) throws -> ProcessResult {
        let result = try runWalkscape(arguments, home: home, timeout: Self.timeout)
        #expect(!result.timedOut, "walkscape \(arguments.joined(separator: " ")) blocked")
        return result
    }

    @Test("a FIFO as tour.json: lint, preview, map and walk say so at once")
    func manifestIsAFIFO() throws {
        let dir = try TemporaryDirectory()
        let root = try TourBuilder(in: dir).write()
        try Self.makeFIFO(root.appendingPathComponent("tour.json"))
        let lint = try walkscape(["lint", root.path], home: dir)
        #expect(lint.status == 1)
        #expect(
            lint.stdout.hasPrefix("error: tour.json: is a FIFO, not a regular file [tour-folder]\n"), "\(lint.stdout)")
        for arguments in [
            ["preview", root.path, "--fast", "--no-audio"], ["map", root.path, "-o", dir.file("m.svg").path],
            ["walk", root.path, "--no-audio", "--no-input"],
        ] {
            let result = try walkscape(arguments, home: dir)
            #expect(result.status == 65, "\(arguments[0]): \(result.stderr)")
            #expect(result.stderr == "walkscape: \(root.path)/tour.json: is a FIFO, not a regular file\n")
        }
    }

    @Test(
        "a FIFO as a point's narration, subtitles or image, or as a trace of the tour: the loader names the field",
        arguments: [
            ("audio", "media/one.mp3", "points[0].content.en.audio"),
            ("subtitles", "media/one.srt", "points[0].content.en.subtitles"),
            ("image", "media/one.png", "points[0].content.en.image"),
            ("trace", "traces/walk.gpx", "traces[0]"),
        ])
    func mediaIsAFIFO(kind: String, path: String, field: String) throws {
        let dir = try TemporaryDirectory()
        let tour = try TourBuilder(in: dir)
        try tour.write()
        try Self.makeFIFO(tour.file(path))
        let line = "tour.json: \(field): \(path) is a FIFO, not a regular file"
        let lint = try walkscape(["lint", tour.root.path], home: dir)
        #expect(lint.status == 1)
        #expect(lint.stdout.contains("error: \(line) [tour-folder]\n"), "\(kind): \(lint.stdout)")
        let preview = try walkscape(["preview", tour.root.path, "--fast", "--no-audio"], home: dir)
        #expect(preview.status == 65)
        #expect(preview.stderr == "walkscape: \(tour.root.path)/\(line)\n")
    }

    @Test("a FIFO named on the command line: play, play --subtitles, trace, preview --trace and map --trace refuse it")
    func commandLineFIFO() throws {
        let dir = try TemporaryDirectory()
        let root = try TourBuilder(in: dir).write()
        let fifo = dir.file("pipe")
        try Self.makeFIFO(fifo)
        let reason = "\(fifo.path): is a FIFO, not a regular file"
        let play = try walkscape(["play", fifo.path, "--output", dir.file("out.wav").path], home: dir)
        #expect(play.status == 65)
        #expect(play.stderr.hasPrefix("walkscape: \(reason)\n"), "\(play.stderr)")
        let subtitles = try walkscape(
            [
                "play", root.appendingPathComponent("media/one.mp3").path, "--subtitles", fifo.path,
                "--output", dir.file("out.wav").path,
            ], home: dir)
        #expect(subtitles.status == 65)
        #expect(subtitles.stderr == "walkscape: \(reason)\n")
        for arguments in [
            ["trace", fifo.path], ["preview", root.path, "--fast", "--trace", fifo.path],
            ["map", root.path, "--trace", fifo.path, "-o", dir.file("m.svg").path],
        ] {
            let result = try walkscape(arguments, home: dir)
            #expect(result.status == 65, "\(arguments[0]): \(result.stderr)")
            #expect(result.stderr.hasPrefix("walkscape: \(reason)"), "\(arguments[0]): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("m.svg").path))
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.wav").path))
    }

    @Test("a character device is refused as what it is, not as a bad MP3 or trace")
    func characterDevice() throws {
        let dir = try TemporaryDirectory()
        let play = try walkscape(["play", "/dev/zero", "--output", dir.file("out.wav").path], home: dir)
        #expect(play.status == 65)
        #expect(
            play.stderr.hasPrefix("walkscape: /dev/zero: is a character device, not a regular file\n"), "\(play.stderr)"
        )
        let trace = try walkscape(["trace", "/dev/zero"], home: dir)
        #expect(trace.status == 65)
        #expect(
            trace.stderr.hasPrefix("walkscape: /dev/zero: is a character device, not a regular file"), "\(trace.stderr)"
        )
    }

    @Test("a FIFO as the configuration file: every command says so instead of waiting")
    func configIsAFIFO() throws {
        let home = try TemporaryDirectory()
        let config = home.file("config/config")
        try FileManager.default.createDirectory(
            at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Self.makeFIFO(config)
        let result = try walkscape(["preview", "tours/demo", "--fast", "--no-audio"], home: home)
        #expect(result.status == 64)
        #expect(result.stderr == "walkscape: \(config.path): is a FIFO, not a regular file\n")
    }
}

import ArgumentParser
import Foundation
import Logging
import TestSupport
import Testing
import TourModel
import WalkscapeServer

@testable import walkscape_server

#if canImport(Glibc)
    import Glibc
#endif

/// `walkscape-server --config FILE` (the Debian package's server.conf): every setting from the file,
/// flags over it, relative paths from the file's folder, and a bad line named by file and line.
struct ServerConfigFileTests {
    static func configuration(_ text: String, flags: [String] = [], in folder: TemporaryDirectory) throws
        -> ServerConfiguration
    {
        let file = folder.file("server.conf")
        try Data(text.utf8).write(to: file)
        return try ServeCommand.parse(["--config", file.path] + flags).configuration()
    }

    static func refusal(_ text: String, flags: [String] = []) throws -> ServerError {
        let folder = try TemporaryDirectory(prefix: "walkscape-server-conf")
        do {
            _ = try configuration(text, flags: flags, in: folder)
        } catch let error as ServerError {
            return error
        }
        Issue.record("\(text) was accepted")
        return ServerError(.failure, "")
    }

    @Test func theFileGivesEverySettingAndRelativePathsStartAtItsFolder() throws {
        let folder = try TemporaryDirectory(prefix: "walkscape-server-conf")
        let configuration = try Self.configuration(
            """
            # the service on the LAN
            tours = \(TestPaths.demoTour.path)
            tours = more-tours     # a second folder, relative
            host = 0.0.0.0
            port = 9090
            data = state
            secret-file = secret
            public-url = https://walks.example.org
            dialect = guide
            token-ttl = 60
            refresh-ttl = 3600
            url-ttl = 120
            idle-timeout = 12.5
            guesses-per-minute = 5
            log-level = debug
            """, in: folder)
        #expect(configuration.tourPaths.map(\.path) == [TestPaths.demoTour.path, folder.file("more-tours").path])
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.port == 9090)
        #expect(configuration.dataDirectory.path == folder.file("state").path)
        #expect(configuration.secretFile?.path == folder.file("secret").path)
        #expect(configuration.publicURL == "https://walks.example.org")
        #expect(configuration.dialect == .guide)
        #expect(configuration.accessTokenTTL == 60)
        #expect(configuration.refreshTokenTTL == 3600)
        #expect(configuration.mediaURLTTL == 120)
        #expect(configuration.idleTimeout == 12.5)
        #expect(configuration.guessesPerMinute == 5)
        let file = folder.file("server.conf")
        #expect(try ServeCommand.parse(["--config", file.path]).level() == .debug)
        #expect(try ServeCommand.parse(["--config", file.path, "--log-level", "error"]).level() == .error)
    }

    @Test func flagsWinOverTheFileAndTheFileOverTheDefaults() throws {
        let folder = try TemporaryDirectory(prefix: "walkscape-server-conf")
        let other = try TemporaryDirectory(prefix: "walkscape-server-data")
        let configuration = try Self.configuration(
            "tours = \(TestPaths.demoTour.path)\nport = 9090\ntoken-ttl = 60\ndata = state\n",
            flags: ["--port", "0", "--data", other.path, "/elsewhere/tours"], in: folder)
        #expect(configuration.port == 0)
        #expect(configuration.dataDirectory.path == other.path)
        // Tours named on the command line replace the file's.
        #expect(configuration.tourPaths.map(\.path) == ["/elsewhere/tours"])
        #expect(configuration.accessTokenTTL == 60)
        // What neither says is the default.
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.refreshTokenTTL == 604_800)
        #expect(configuration.mediaURLTTL == 86_400)
        #expect(configuration.idleTimeout == 30)
        #expect(configuration.guessesPerMinute == 60)
        #expect(configuration.dialect == .live)
        #expect(configuration.publicURL == nil)
        #expect(configuration.secretFile == nil)
    }

    @Test func aBadLineIsAUsageErrorNamingTheFileAndTheLine() throws {
        let tours = "tours = \(TestPaths.demoTour.path)\n"
        let unknown = try Self.refusal(tours + "prot = 8080\n")
        #expect(unknown.kind == .usage)
        #expect(unknown.message.contains("server.conf: line 2: unknown setting 'prot'"))
        let malformed = try Self.refusal(tours + "port 8080\n")
        #expect(malformed.kind == .usage)
        #expect(malformed.message.contains("server.conf: line 2"))
        let range = try Self.refusal(tours + "\nport = 70000\n")
        #expect(range.message.hasSuffix("server.conf line 3: port must be within 0...65535"))
        let word = try Self.refusal(tours + "dialect = klingon\n")
        #expect(word.message.hasSuffix("server.conf line 2: dialect 'klingon' is not a valid value"))
        let empty = try Self.refusal(tours + "host =\n")
        #expect(empty.message.hasSuffix("server.conf: line 2: host has no value"))
        let url = try Self.refusal(tours + "public-url = ftp://walks\n")
        #expect(url.message.contains("server.conf line 2: public-url must be an http:// or https:// URL"))
        // A port no host can have: the links it made would stop every client that follows them.
        for port in ["99999", "0", "99999999999999999999"] {
            let bad = try Self.refusal(tours + "public-url = http://127.0.0.1:\(port)\n")
            #expect(bad.message.contains("public-url must be an http:// or https:// URL"), "\(port)")
        }
        // A flag's bad value is named as the flag, even with a file.
        let flag = try Self.refusal(tours, flags: ["--port=-1"])
        #expect(flag.message == "--port must be within 0...65535")
        let none = try Self.refusal("port = 8080\n")
        #expect(none.message.contains("name at least one tour folder"))
        #expect(throws: ServerError.self) {
            try ServeCommand.parse(["--config", "/nonexistent/server.conf"]).configuration()
        }
    }

    /// A file saved on Windows (CRLF, a byte-order mark) reads as the same settings, line by line.
    @Test func crlfLineEndsAndAByteOrderMarkReadAsTheSameSettings() throws {
        let folder = try TemporaryDirectory(prefix: "walkscape-server-conf")
        let text = "\u{FEFF}tours = \(TestPaths.demoTour.path)\r\nport = 9191\r\n# a comment\r\nhost = 0.0.0.0\r\n"
        let configuration = try Self.configuration(text, in: folder)
        #expect(configuration.tourPaths.map(\.path) == [TestPaths.demoTour.path])
        #expect(configuration.port == 9191)
        #expect(configuration.host == "0.0.0.0")
        let bad = try Self.refusal("tours = \(TestPaths.demoTour.path)\r\nport = x\r\n")
        #expect(bad.message.hasSuffix("server.conf line 2: port 'x' is not a valid value"))
    }

    @Test func aHostIsAnAddressOrANameWithoutAPort() throws {
        let tours = "tours = \(TestPaths.demoTour.path)\n"
        for host in ["localhost:8080", "127.0.0.1#x", "two words", "http://host"] {
            let refusal = try Self.refusal(tours + "host = \"\(host)\"\n")
            #expect(refusal.kind == .usage)
            #expect(
                refusal.message.hasSuffix("server.conf line 2: host must be an IP address or a host name (no port)"),
                "\(host)")
        }
        let folder = try TemporaryDirectory(prefix: "walkscape-server-conf")
        for host in ["127.0.0.1", "0.0.0.0", "::1", "::", "walks.example.org", "localhost"] {
            #expect(try Self.configuration(tours + "host = \(host)\n", in: folder).host == host)
        }
    }

    /// A secret file that is there but cannot be used says why, and never advises making a new
    /// one over it (that would end every session); only a missing one gets the recipe.
    @Test func aSecretFileThatCannotBeUsedSaysWhyWithoutAdvisingToReplaceIt() throws {
        let folder = try TemporaryDirectory(prefix: "walkscape-server-secret")
        let data = folder.file("data")
        func refusal(_ secret: URL) -> ServerError? {
            #expect(throws: ServerError.self) { try ServerSecrets.load(dataDirectory: data, secretFile: secret) }
        }
        for text in [
            "", "\n", String(repeating: "a", count: 33), String(repeating: "+f", count: 16),
            "zz" + String(repeating: "ab", count: 20),
        ] {
            let file = folder.file("bad")
            try Data(text.utf8).write(to: file)
            let error = refusal(file)
            #expect(error?.kind == .data, "\(text)")
            #expect(error?.message.contains("hex digits") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("remove") == false && error?.message.contains("od -An") == false)
        }
        let directory = folder.file("a-folder")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let folderError = refusal(directory)
        #expect(folderError?.message.contains("od -An") == false, "\(folderError?.message ?? "")")
        #expect(folderError?.message.contains("folder") == true, "\(folderError?.message ?? "")")
        let missing = refusal(folder.file("missing"))
        #expect(missing?.message.contains("umask 077") == true, "\(missing?.message ?? "")")
        // Upper-case hex is hex.
        try Data(String(repeating: "AB", count: 32).utf8).write(to: folder.file("upper"))
        #expect(throws: Never.self) { try ServerSecrets.load(dataDirectory: data, secretFile: folder.file("upper")) }
    }

    @Test func aGivenSecretFileIsReadAndNeverMadeOrReplaced() throws {
        let folder = try TemporaryDirectory(prefix: "walkscape-server-secret")
        let data = folder.file("data")
        let secret = folder.file("secret")
        let missing = #expect(throws: ServerError.self) {
            try ServerSecrets.load(dataDirectory: data, secretFile: secret)
        }
        #expect(missing?.kind == .unavailable)
        #expect(missing?.message.contains("od -An -vtx1 -N32 /dev/urandom") == true)
        #expect(!FileManager.default.fileExists(atPath: secret.path))

        try Data((String(repeating: "5a", count: 32) + "\n").utf8).write(to: secret)
        let first = try ServerSecrets.load(dataDirectory: data, secretFile: secret)
        let again = try ServerSecrets.load(dataDirectory: data, secretFile: secret)
        #expect(first.accessTokenKey == again.accessTokenKey)
        // The data folder's own secret is neither made nor used.
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent(ServerSecrets.fileName).path))
        let own = try ServerSecrets.load(dataDirectory: data)
        #expect(own.accessTokenKey != first.accessTokenKey)

        try Data("not hex at all\n".utf8).write(to: secret)
        let garbage = #expect(throws: ServerError.self) {
            try ServerSecrets.load(dataDirectory: data, secretFile: secret)
        }
        #expect(garbage?.kind == .data)
    }

    /// As systemd starts it: the file alone, the tours it names served, and the secret never printed.
    @Test func theServerRunsFromTheFileAloneAndNeverPrintsTheSecret() async throws {
        let folder = try TemporaryDirectory(prefix: "walkscape-server-conf")
        let hex = String(repeating: "c3", count: 32)
        try Data((hex + "\n").utf8).write(to: folder.file("secret"))
        let file = folder.file("server.conf")
        try Data(
            """
            tours = \(TestPaths.demoTour.path)
            port = 0
            data = state
            secret-file = secret
            log-level = debug
            """.utf8
        ).write(to: file)
        let child = try ChildProcess(TestPaths.walkscapeServer, ["--config", file.path], separateErrorOutput: true)
        let deadline = Date().addingTimeInterval(30)
        while !child.output.contains("\n"), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let base = try #require(child.output.split(separator: "\n").first.map(String.init))
        let port = try #require(URLComponents(string: base)?.port)
        let tours = try RawHTTP.get(port: port, "/tours")
        #expect(tours.status == 200)
        #expect(String(decoding: tours.body, as: UTF8.self).contains("\"slug\":\"florence-duomo-pitti\""))
        child.signal(SIGTERM)
        #expect(await child.wait(timeout: 10) == 0)
        #expect(!child.output.contains(hex) && !child.errorOutput.contains(hex))
        #expect(FileManager.default.fileExists(atPath: folder.file("state/server.sqlite").path))
        #expect(!FileManager.default.fileExists(atPath: folder.file("state/secret").path))
    }

    @Test func versionNamesTheChangelogsVersionAndTheCommit() throws {
        let result = try run(TestPaths.walkscapeServer, ["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasSuffix(")\n") && result.stdout.filter { $0 == "\n" }.count == 1)
        #expect(
            try TestPaths.isVersionLine(String(result.stdout.dropLast()), program: "walkscape-server"),
            "\(result.stdout)")
    }
}

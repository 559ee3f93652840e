import Foundation
import TestSupport
import Testing
import TourAPI
import TourModel
import WalkscapeKit

@testable import walkscape

#if canImport(Glibc)
    import Glibc
#endif

/// The credentials file: mode 0600 whatever the umask or the old file's mode, replaced whole,
/// nothing left behind.
@Suite(.serialized)
struct CredentialsFileTests {
    func credentials(_ n: Int) -> Credentials {
        Credentials(
            service: "http://127.0.0.1:9", email: "ada@example.org", userID: "u\(n)",
            tokens: AuthTokens(accessToken: "access-\(n)", refreshToken: "refresh-\(n)"))
    }

    func mode(_ url: URL) -> mode_t {
        var info = stat()
        stat(url.path, &info)
        return info.st_mode & 0o777
    }

    /// `walkscape ARGUMENTS` under umask 000, in a shell of its own: the umask is the whole test
    /// process's, and tests running beside this one spawn children that would inherit it.
    static func underPermissiveUmask(
        _ arguments: [String], home: TemporaryDirectory, environment: [String: String] = [:], stdin: Data? = nil
    ) throws -> ProcessResult {
        try run(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", "umask 000; exec \"$0\" \"$@\"", TestPaths.walkscape.path] + arguments + ["--home", home.path],
            environment: environment.merging(["NO_COLOR": "1", "DO_NOT_TRACK": ""]) { given, _ in given },
            stdin: stdin, timeout: 60)
    }

    @Test func isWrittenWithMode0600EvenUnderAPermissiveUmask() async throws {
        let home = try TemporaryDirectory()
        let file = CredentialsFile(url: home.file("config/credentials.json"))
        try file.save(credentials(1))
        #expect(mode(file.url) == 0o600)
        #expect(file.permissions == 0o600)
        #expect(try file.load() == credentials(1))

        // A login under umask 000.
        let server = try await ServerProcess.start()
        try server.addUser("ada@example.org", password: "correct horse battery")
        let other = try TemporaryDirectory()
        let login = try Self.underPermissiveUmask(
            ["login", "--email", "ada@example.org", "--password-stdin"], home: other,
            environment: ["WALKSCAPE_API_URL": server.baseURL], stdin: Data("correct horse battery\n".utf8))
        await server.stop()
        #expect(login.status == 0, "\(login.stderr)")
        #expect(mode(other.file("config/credentials.json")) == 0o600)
    }

    @Test func replacingAWideFileLeavesA0600OneAndNoTemporaryFiles() throws {
        let home = try TemporaryDirectory()
        let url = try home.write("config/credentials.json", "{}")
        chmod(url.path, 0o644)
        let file = CredentialsFile(url: url)
        try file.save(credentials(2))
        #expect(mode(url) == 0o600)
        #expect(try file.load()?.userID == "u2")
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.file("config").path) == ["credentials.json"])
    }

    @Test func aSymlinkedFileIsFollowedAndTheLinkStays() throws {
        let home = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: home.file("config"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: home.file("dotfiles"), withIntermediateDirectories: true)
        let link = home.file("config/credentials.json")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "../dotfiles/walkscape.json")
        let file = CredentialsFile(url: link)
        try file.save(credentials(1))
        #expect(try file.load() == credentials(1))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "../dotfiles/walkscape.json")
        #expect(mode(home.file("dotfiles/walkscape.json")) == 0o600)
        // Logging out removes the tokens; the link stays, and the next login writes through it.
        try file.remove()
        #expect(!FileManager.default.fileExists(atPath: home.file("dotfiles/walkscape.json").path))
        #expect(try file.load() == nil)
        try file.save(credentials(2))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "../dotfiles/walkscape.json")
        #expect(try file.load() == credentials(2))
    }

    @Test func theConfigFileIsTheOwnersAloneUnderAPermissiveUmask() throws {
        let home = try TemporaryDirectory()
        let config = home.file("config/config")
        let off = try Self.underPermissiveUmask(["analytics", "off"], home: home)
        #expect(off.status == 0, "\(off.stderr)")
        #expect(mode(config) == 0o600)
        chmod(config.path, 0o666)
        let on = try Self.underPermissiveUmask(["analytics", "on"], home: home)
        #expect(on.status == 0, "\(on.stderr)")
        #expect(mode(config) == 0o644)
    }

    @Test func aDamagedFileIsAnErrorNamingTheWayOut() throws {
        let home = try TemporaryDirectory()
        let url = try home.write("config/credentials.json", "{not json")
        #expect {
            try CredentialsFile(url: url).load()
        } throws: { error in
            (error as? APIError).map { AppError($0).message }
                == "\(url.path) is damaged: walkscape logout, then walkscape login"
        }
    }

    /// Only a regular file of credentials' size is read: a FIFO hung every command, a link to
    /// /dev/zero read until memory ran out, and a folder was named in Foundation's words.
    @Test func somethingOtherThanARegularFileOfCredentialsIsRefusedWithoutReadingIt() throws {
        let folder = try TemporaryDirectory()
        let url = folder.url.appendingPathComponent("credentials.json")
        let store = CredentialsFile(url: url)
        func refusal() -> String? {
            do {
                _ = try store.load()
                return nil
            } catch { return error.message }
        }
        #expect(mkfifo(url.path, 0o600) == 0)
        #expect(refusal()?.contains("is a FIFO, not a regular file") == true, "\(refusal() ?? "read")")
        try FileManager.default.removeItem(at: url)
        try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: "/dev/zero")
        #expect(refusal()?.contains("not a regular file") == true, "\(refusal() ?? "read")")
        try FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        #expect(refusal()?.contains("is a folder") == true, "\(refusal() ?? "read")")
        try FileManager.default.removeItem(at: url)
        try Data(repeating: 0x20, count: 1 << 20).write(to: url)
        #expect(refusal()?.contains("too large") == true, "\(refusal() ?? "read")")
    }

    @Test func removingNothingIsFine() throws {
        let home = try TemporaryDirectory()
        let file = CredentialsFile(url: home.file("config/credentials.json"))
        try file.remove()
        #expect(try file.load() == nil)
        #expect(file.permissions == nil)
    }

    @Test func renewalsOfTwoHoldersNeverOverlap() async throws {
        let home = try TemporaryDirectory()
        let file = CredentialsFile(url: home.file("config/credentials.json"))
        let log = SpanLog()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<3 {
                group.addTask {
                    try await file.exclusively { () async throws(APIError) -> Int in
                        log.add("start \(n)")
                        try? await Task.sleep(for: .milliseconds(60))
                        log.add("end \(n)")
                        return n
                    }
                }
            }
            try await group.waitForAll()
        }
        let entries = log.entries
        #expect(entries.count == 6)
        for i in stride(from: 0, to: entries.count, by: 2) {
            #expect(entries[i].hasPrefix("start") && entries[i + 1] == "end" + entries[i].dropFirst(5))
        }
    }
}

final class SpanLog: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ entry: String) { lock.withLock { list.append(entry) } }
    var entries: [String] { lock.withLock { list } }
}

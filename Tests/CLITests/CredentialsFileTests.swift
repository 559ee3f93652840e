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

    @Test func isWrittenWithMode0600EvenUnderAPermissiveUmask() throws {
        let home = try TemporaryDirectory()
        let file = CredentialsFile(url: home.file("config/credentials.json"))
        let old = umask(0)
        defer { umask(old) }
        try file.save(credentials(1))
        #expect(mode(file.url) == 0o600)
        #expect(file.permissions == 0o600)
        #expect(try file.load() == credentials(1))
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

import Foundation
import TestSupport
import Testing
import TourModel

/// The admin subcommands: what they write, and their errors (one line, the project's exit codes).
struct AdminCommandTests {
    @Test func userAddReadsThePasswordFromStdinAndRefusesDuplicates() async throws {
        let server = try await ServerProcess.start()
        try server.admin(["user", "add", "ada@example.org", "--bcrypt-cost", "4"], stdin: Data("correct horse\n".utf8))
        let login = try await HTTPTestClient(server).post(
            "/auth/login", ["email": "ada@example.org", "password": "correct horse"])
        #expect(login.status == 201)
        let duplicate = try run(
            TestPaths.walkscapeServer,
            [
                "user", "add", "ADA@example.org", "--password", "whatever1",
                "--bcrypt-cost", "4", "--data", server.dataDirectory.path,
            ])
        #expect(duplicate.status == 65)
        #expect(duplicate.stderr == "walkscape-server: an account for ada@example.org already exists\n")
        let short = try run(
            TestPaths.walkscapeServer,
            [
                "user", "add", "bob@example.org", "--password", "short",
                "--data", server.dataDirectory.path,
            ])
        #expect(short.status == 64 && short.stderr.contains("at least 8 characters"))
        await server.stop()
    }

    @Test func voucherAddValidatesItsFlags() throws {
        let data = try TemporaryDirectory()
        for args in [
            ["voucher", "add", "X", "--max-uses", "0"], ["voucher", "add", "X", "--valid-until", "next week"],
            ["voucher", "add", "   "],
        ] {
            let result = try run(TestPaths.walkscapeServer, args + ["--data", data.path])
            #expect(result.status == 64, "\(args)")
        }
        let ok = try ServerProcess.admin(
            [
                "voucher", "add", " summer ", "--tour", "t1", "--max-uses", "3",
                "--valid-until", "2030-06-30",
            ], data: data.url)
        #expect(ok.stdout == "voucher SUMMER unlocks tour t1, at most 3 use(s), valid until 2030-06-30T23:59:59.000Z\n")
    }

    @Test func statsAndEventsWorkOnAnEmptyDataFolder() throws {
        let data = try TemporaryDirectory()
        let stats = try JSONDecoder().decode(
            [String: Int].self, from: ServerProcess.admin(["stats", "--json"], data: data.url).stdoutData)
        #expect(stats["users"] == 0 && stats["refreshes"] == 0 && stats["events"] == 0)
        #expect(try ServerProcess.admin(["events"], data: data.url).stdout == "received 0, unique 0, duplicates 0\n")
    }
}

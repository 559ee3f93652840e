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

    @Test func readingCommandsRefuseAFolderWithNoServerDataAndCreateNothing() async throws {
        // A mistyped --data: no zeros, exit 0 and a new database there, but one line and 64.
        let data = try TemporaryDirectory()
        for args in [["stats", "--json"], ["events"], ["voucher", "list"]] {
            let result = try run(
                TestPaths.walkscapeServer, args + ["--data", data.url.appendingPathComponent("typo").path])
            #expect(result.status == 64, "\(args): \(result.stderr)")
            #expect(
                result.stderr.hasSuffix("holds no server data (no server.sqlite): check --data\n"), "\(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: data.path).isEmpty)
        // Once a server has used the folder, they report what it holds.
        _ = try await ServerProcess.start(data: data.url).stop()
        let stats = try JSONDecoder().decode(
            [String: Int].self, from: ServerProcess.admin(["stats", "--json"], data: data.url).stdoutData)
        #expect(stats["users"] == 0 && stats["refreshes"] == 0 && stats["events"] == 0)
        #expect(try ServerProcess.admin(["events"], data: data.url).stdout == "received 0, unique 0, duplicates 0\n")
    }

    @Test func voucherDatesMustExistAndCountsMustBeNumbersAndCostsSane() throws {
        let data = try TemporaryDirectory()
        for (args, message) in [
            (["voucher", "add", "X", "--valid-until", "2026-02-31"], "is neither a date that exists"),
            // Before 1970 a voucher has ended before any walk; and before 1582 the day printed back
            // was another (1582-10-10 came back as 1582-09-30).
            (["voucher", "add", "X", "--valid-until", "1582-10-10"], "from 1970-01-01 to 9999-12-31"),
            (["voucher", "add", "X", "--valid-until", "1969-12-31"], "from 1970-01-01 to 9999-12-31"),
            (["voucher", "add", "X", "--valid-until", "0000-01-01T00:00:00Z"], "from 1970-01-01 to 9999-12-31"),
            (["voucher", "add", "X", "--max-uses", "-5"], "--max-uses must be at least 1"),
            (
                ["user", "add", "a@example.org", "--password", "correct horse", "--bcrypt-cost", "99"],
                "--bcrypt-cost must be within 4...31"
            ),
        ] {
            let result = try run(TestPaths.walkscapeServer, args + ["--data", data.path])
            #expect(result.status == 64, "\(args): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(args): \(result.stderr)")
        }
        let first = try ServerProcess.admin(["voucher", "add", "EPOCH", "--valid-until", "1970-01-01"], data: data.url)
        #expect(first.stdout.contains("valid until 1970-01-01T23:59:59.000Z"), "\(first.stdout)")
        let leap = try ServerProcess.admin(["voucher", "add", "LEAP", "--valid-until", "2028-02-29"], data: data.url)
        #expect(leap.stdout.contains("valid until 2028-02-29T23:59:59.000Z"), "\(leap.stdout)")
    }
}

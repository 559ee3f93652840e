import Foundation
import TestSupport
import Testing
import TourModel

#if canImport(Glibc)
    import Glibc
#endif

/// Starting, stopping, and refusing to start.
struct ServerLifecycleTests {
    @Test func printsItsBaseURLFirstServesHealthAndStopsGracefullyOnSIGTERM() async throws {
        let server = try await ServerProcess.start()
        #expect(server.baseURL == "http://127.0.0.1:\(server.port)")
        let health = try await HTTPTestClient(server).get("/health")
        #expect(health.status == 200)
        #expect(try health.decode(HealthStatus.self).isOK)
        #expect(health.json["details"]?["tours"]?["count"] == 1)
        #expect(await server.stop() == 0)
    }

    @Test func theDatabaseIsOwnerOnlyAndAnOpenDataFolderIsWarnedAbout() async throws {
        // A data folder made beforehand by someone else's umask (0755), holding a database an
        // older server left world-readable (0644), with its write-ahead log.
        let data = try TemporaryDirectory(prefix: "walkscape-server-open")
        chmod(data.url.path, 0o755)
        let database = data.file("server.sqlite").path
        _ = try await ServerProcess.start(data: data.url).stop()
        chmod(database, 0o644)
        let server = try await ServerProcess.start(data: data.url)
        // An account added while it runs: the write-ahead log and shared memory are in use.
        try server.addUser("mode@example.org", password: "correct horse battery")
        for file in [database, database + "-wal", database + "-shm"] {
            let mode = (try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber)?
                .intValue
            #expect(mode == 0o600, "\(file): mode \(String(mode ?? 0, radix: 8))")
        }
        #expect(
            server.log.contains(
                "\(data.url.path) can be read by every user (mode 755); it holds password hashes and e-mail addresses: chmod 700 it"
            ), "\(server.log)")
        #expect(await server.stop() == 0)
    }

    @Test func sigintStopsItToo() async throws {
        let server = try await ServerProcess.start()
        server.signal(SIGINT)
        #expect(await server.stop() == 0)
    }

    @Test func aBrokenTourFolderAtStartIsOneLineAndExitCode65() throws {
        let dir = try TemporaryDirectory()
        let tour = try TourFixture().write(in: dir.url)
        try Data(#"{"format": 1, "id": "x", "slug": "Bad Slug""#.utf8).write(
            to: tour.appendingPathComponent("tour.json"))
        let result = try run(TestPaths.walkscapeServer, [tour.path, "--port", "0", "--data", dir.file("data").path])
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("walkscape-server: \(tour.path)/tour.json: not valid JSON"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stdout.isEmpty)
    }

    @Test func badFlagsAreUsageErrors() throws {
        let dir = try TemporaryDirectory()
        for args in [
            ["--fault-rate", "2"], ["--port", "70000"], ["--token-ttl", "0"], ["--public-url", "ftp://x"], [],
            // Tokens that would outlive any date a client can show, and a delay SIGTERM waits out.
            ["--token-ttl", "9223372036854775807"], ["--refresh-ttl", "315360001"], ["--url-ttl", "999999999999"],
            ["--latency", "60001"],
        ] {
            let tours = args.isEmpty ? [] : [TestPaths.demoTour.path]
            let result = try run(TestPaths.walkscapeServer, tours + args + ["--data", dir.path])
            #expect(result.status == 64, "\(args): \(result.stderr)")
        }
        let missing = try run(TestPaths.walkscapeServer, [dir.file("nothing-here").path, "--data", dir.path])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("no such folder"))
    }

    /// A host name with no address is refused in the server's words, on one line.
    @Test func aHostWithNoAddressIsReportedInTheServersWords() throws {
        let dir = try TemporaryDirectory()
        let result = try run(
            TestPaths.walkscapeServer,
            [TestPaths.demoTour.path, "--host", "999.1.1.1", "--port", "0", "--data", dir.file("data").path])
        #expect(result.status != 0)
        #expect(result.stderr.hasPrefix("walkscape-server: cannot listen on 999.1.1.1:0"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test func aPortInUseIsReportedNotCrashedOn() async throws {
        let first = try await ServerProcess.start()
        let dir = try TemporaryDirectory()
        let result = try run(
            TestPaths.walkscapeServer,
            [
                TestPaths.demoTour.path, "--port", String(first.port),
                "--data", dir.path, "--log-level", "critical",
            ])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("cannot listen on 127.0.0.1:\(first.port)"))
        await first.stop()
    }

    @Test func theDataFolderAndSecretArePrivate() async throws {
        let server = try await ServerProcess.start()
        let attributes = try FileManager.default.attributesOfItem(
            atPath: server.dataDirectory.appendingPathComponent("secret").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        await server.stop()
    }
}

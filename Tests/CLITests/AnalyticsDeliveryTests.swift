import Foundation
import TestSupport
import Testing
import TourModel

#if canImport(Glibc)
    import Glibc
    import WalkRuntime
#endif

/// Analytics end to end (issue 13): the real `walkscape` on a temporary home, the real
/// `walkscape-server` on an ephemeral port (faults included), a real gpsd on a pty for walks. What
/// counts is what the server's `events --json` says it received.
@Suite(.serialized)
struct AnalyticsDeliveryTests {
    static let demoID = "3b6f7a0e-2c55-4c1e-8f4a-7d2f5e0c9a10"
    static let slug = "florence-duomo-pitti"
    static let pointIDs = LiveWalkCommandTests.pointIDs
    static let password = "correct horse battery"

    /// A served copy of the demo tour with short narration, a home, and the tour downloaded.
    struct Setup {
        let scratch: TemporaryDirectory
        let home: TemporaryDirectory
        let tours: URL
        var server: ServerProcess

        init(options: ServerProcess.Options = .init(), register: Bool = false) async throws {
            scratch = try TemporaryDirectory(prefix: "walkscape-analytics")
            home = try TemporaryDirectory(prefix: "walkscape-analytics-home")
            tours = scratch.url.appendingPathComponent("tours", isDirectory: true)
            try FileManager.default.createDirectory(at: tours, withIntermediateDirectories: true)
            try ShortDemo.copy(to: tours.appendingPathComponent("demo"))
            var options = options
            options.tours = [tours]
            server = try await ServerProcess.start(options)
            if register {
                let r = try walkscape(
                    ["register", "--email", "ada@example.org", "--password-stdin"],
                    stdin: Data((AnalyticsDeliveryTests.password + "\n").utf8))
                #expect(r.status == 0, "\(r.stderr)")
            }
            let download = try walkscape(["download", AnalyticsDeliveryTests.slug, "-l", "en"])
            #expect(download.status == 0, "\(download.stderr)")
        }

        @discardableResult
        func walkscape(
            _ arguments: [String], apiURL: String? = nil, environment: [String: String] = [:],
            stdin: Data? = nil
        ) throws -> ProcessResult {
            var env = environment
            env["WALKSCAPE_API_URL"] = apiURL ?? server.baseURL
            return try runWalkscape(arguments, home: home, environment: env, stdin: stdin)
        }

        /// The same server again, on the same port and data, with other switches.
        mutating func restart(_ options: ServerProcess.Options) async throws {
            let port = server.port
            let data = server.dataDirectory
            await server.stop()
            var options = options
            options.tours = [tours]
            options.extraArguments += ["--port", "\(port)"]
            // The stopped server keeps the temporary data folder it made alive.
            keep.append(server)
            server = try await ServerProcess.start(options, data: data)
        }

        private var keep: [ServerProcess] = []

        /// A walk of the installed tour with gpsd fed the demo trace; `until` stops feeding.
        func walk(gpsd: GPSDHarness, apiURL: String? = nil, environment: [String: String] = [:]) throws -> ChildProcess
        {
            var env = environment
            env["NO_COLOR"] = "1"
            env["WALKSCAPE_API_URL"] = apiURL ?? server.baseURL
            env["DO_NOT_TRACK"] = env["DO_NOT_TRACK"] ?? ""
            return try ChildProcess(
                TestPaths.walkscape,
                [
                    "walk", AnalyticsDeliveryTests.slug, "--no-input", "--no-audio",
                    "--gpsd-port", "\(gpsd.port)", "--home", home.path,
                ],
                environment: env)
        }

        /// Lines of an `outbox.jsonl` as walkscape wrote them before the outbox.
        func writeJournal(_ events: [AnalyticsEvent], tornTail: String? = nil) throws {
            var text = try events.map {
                String(decoding: try WalkscapeJSON.encode($0, dialect: .live), as: UTF8.self) + "\n"
            }.joined()
            if let tornTail { text += tornTail }
            try home.write("state/outbox.jsonl", text)
        }
    }

    static func feed(_ gpsd: GPSDHarness, _ range: Range<Int>, until stop: () -> Bool) async -> Int {
        await DemoTrace.feed(gpsd, range, until: stop)
    }

    static var epochs: Int { DemoTrace.epochs.count }

    /// Events of the served tour, as a journal would hold them, numbered for the test.
    static func journalEvents(_ count: Int, name: (Int) -> String = { _ in "point_triggered" }) -> [AnalyticsEvent] {
        (0..<count).map { n in
            AnalyticsEvent(
                name: name(n), anonymousID: "journal", tourID: demoID, pointID: pointIDs[n % pointIDs.count],
                language: "en", timestamp: Date(timeIntervalSince1970: 1_800_000_000 + Double(n)),
                properties: [
                    "eventId": .string(UUID().uuidString.lowercased()), "triggerType": "gps",
                    "platform": "linux", "n": .number(Double(n)),
                ])
        }
    }

    static func properties(_ event: AnalyticsEvent) -> [String: JSONValue] { event.properties }

    // MARK: -

    @Test func aWalkOfAnInstalledTourReachesTheServiceWhileItGoesOnEachEventOnceInOrderWithItsIdsAndProperties()
        async throws
    {
        let setup = try await Setup(register: true)
        let gpsd = try GPSDHarness()
        let child = try setup.walk(gpsd: gpsd)
        #expect(await child.waitForOutput("gps: waiting for a fix", timeout: 10), "output: \(child.output)")
        _ = await Self.feed(gpsd, 0..<Self.epochs) { !child.isRunning }
        #expect(await child.wait(timeout: 30) == 0, "output: \(child.output)")

        // Sent during the walk and at its end: nothing is left for sync.
        let beforeSync = try setup.server.events()
        let sync = try setup.walkscape(["sync", "--json"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: sync.stdoutData) as? [String: Any])
        #expect(report["sent"] as? Int == 0 && report["waiting"] as? Int == 0 && report["quarantined"] as? Int == 0)

        let received = try setup.server.events()
        #expect(received.events.count == beforeSync.events.count)
        #expect(received.duplicates == 0 && received.unique == received.received)
        let events = received.events.map(\.event)
        #expect(
            events.map(\.name) == ["signup", "tour_download_started", "tour_download_completed", "tour_started"]
                + Array(repeating: "point_triggered", count: 5) + ["tour_completed"])
        let walk = Array(events.dropFirst(3))
        #expect(walk.allSatisfy { $0.tourID == Self.demoID && $0.language == "en" })
        #expect(walk.filter { $0.name == "point_triggered" }.map(\.pointID) == Self.pointIDs)
        #expect(walk.filter { $0.name == "point_triggered" }.allSatisfy { $0.properties["triggerType"] == "gps" })
        let completed = try #require(walk.last)
        #expect(completed.properties["pointsVisited"] == 5 && completed.properties["lastPointIndex"] == 4)
        #expect(completed.properties["durationMinutes"]?.numberValue != nil)
        // Every event: its eventId, the installation's anonymous id, the user, the machine, online.
        let status = try #require(
            try JSONSerialization.jsonObject(with: setup.walkscape(["analytics", "status", "--json"]).stdoutData)
                as? [String: Any])
        let userID = try #require(events[0].userID)
        for (event, record) in zip(events, received.events) {
            #expect(event.properties["platform"] == "linux")
            #expect(record.eventID == event.eventID && UUID(uuidString: event.eventID ?? "") != nil)
            #expect(event.anonymousID == status["anonymousId"] as? String && event.anonymousID != nil)
            #expect(event.userID == userID)
            #expect(event.device == status["device"] as? String && event.osVersion == status["osVersion"] as? String)
            #expect(event.offline == false)
        }
        #expect(
            zip(walk, walk.dropFirst()).allSatisfy {
                ($0.timestamp ?? .distantPast) <= ($1.timestamp ?? .distantFuture)
            })
        #expect(KeptEvents.read(setup.home).isEmpty)
    }

    @Test func aWalkWhereTheServiceCannotBeReachedIsDeliveredBySyncLaterMarkedOffline() async throws {
        var setup = try await Setup()
        await setup.server.stop()
        let gpsd = try GPSDHarness()
        let child = try setup.walk(gpsd: gpsd)
        #expect(await child.waitForOutput("gps: waiting for a fix", timeout: 10), "output: \(child.output)")
        _ = await Self.feed(gpsd, 0..<DemoTrace.afterPoint2) { false }
        #expect(await child.waitForOutput("triggered: 2. ", timeout: 15), "output: \(child.output)")
        child.signal(SIGTERM)
        #expect(await child.wait(timeout: 15) == 128 + SIGTERM, "output: \(child.output)")
        let kept = KeptEvents.read(setup.home)
        #expect(
            kept.compactMap { $0["name"] as? String } == [
                "tour_started", "point_triggered", "point_triggered", "tour_abandoned",
            ])
        #expect(kept.allSatisfy { $0["offline"] as? Bool == true && $0["state"] as? String == "waiting" })

        // Unreachable now: sync says so, quickly, and keeps everything.
        let refused = try setup.walkscape(["sync"])
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(
            refused.stderr.hasPrefix("walkscape: 4 events still waiting: cannot reach the service"), "\(refused.stderr)"
        )

        try await setup.restart(.init())
        let sync = try setup.walkscape(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout == "Sent 4 events; 0 waiting, 0 quarantined.\n")
        let received = try setup.server.events()
        #expect(received.duplicates == 0)
        #expect(
            received.events.map(\.event.name) == [
                "tour_download_started", "tour_download_completed", "tour_started",
                "point_triggered", "point_triggered", "tour_abandoned",
            ])
        #expect(received.events.map(\.event.offline) == [false, false, true, true, true, true])
    }

    @Test func killingSyncAtRandomMomentsUnderFaultsLosesNothingAndSendsNothingUnderANewId() async throws {
        var setup = try await Setup()
        // 30 batches: with the faults and the rate limit (Retry-After: 1), a sync takes seconds.
        let injected = Self.journalEvents(1500)
        // The last line of the journal was cut short by a crash: no event, and kept aside.
        try setup.writeJournal(injected, tornTail: #"{"language":"en","name":"point_trig"#)
        let seed = UInt64.random(in: 1...1_000_000)
        // 20 % of requests fail with a 5xx and 20 % are cut. At 30 % a bisection now and then brought
        // an innocent event down to itself, and with two failures alone enough to quarantine it this
        // test failed 1 run in 3; four are needed now (docs/analytics.md), and 20 % keeps the chance
        // of four by luck out of the test.
        try await setup.restart(.init(faultRate: 0.2, resetRate: 0.2, rateLimit: 10, faultSeed: seed))

        var generator = SystemRandomNumberGenerator()
        var kills = 0
        var finished = false
        let started = ContinuousClock.now
        for round in 0..<30 where !finished {
            let child = try ChildProcess(
                TestPaths.walkscape, ["sync", "--home", setup.home.path, "--max-time", "120"],
                environment: ["WALKSCAPE_API_URL": setup.server.baseURL, "DO_NOT_TRACK": ""])
            if round < 8 {
                // The first kills come early (the import, the first batches), the later ones anywhere.
                let delay =
                    round < 2
                    ? Int.random(in: 5...60, using: &generator) : Int.random(in: 100...1000, using: &generator)
                try await Task.sleep(for: .milliseconds(delay))
                if child.isRunning {
                    child.signal(SIGKILL)
                    kills += 1
                    _ = await child.wait(timeout: 10)
                    continue
                }
            }
            let code = await child.wait(timeout: 180)
            #expect(code == 0, "sync (fault seed \(seed)): \(child.output)")
            finished = code == 0
        }
        #expect(finished, "fault seed \(seed)")
        #expect(kills >= 5, "only \(kills) syncs were killed before they finished")

        let received = try setup.server.events()
        let walkEvents = received.events.filter { $0.event.anonymousID == "journal" }
        let ids = Set(walkEvents.compactMap(\.eventID))
        // Nothing lost: every injected event arrived; nothing new: no event under another id.
        #expect(ids == Set(injected.compactMap(\.eventID)))
        #expect(walkEvents.filter { !$0.duplicate }.count == injected.count)
        // What a re-sent batch adds carries the same ids, and the server counts it as a duplicate.
        #expect(received.received - received.unique == received.duplicates)
        for record in walkEvents where !record.duplicate {
            let original = try #require(injected.first { $0.eventID == record.eventID })
            #expect(
                record.event.pointID == original.pointID && record.event.timestamp == original.timestamp
                    && record.event.properties["n"] == original.properties["n"])
        }
        // In the order they happened (each first arrival).
        let order = walkEvents.filter { !$0.duplicate }.compactMap { $0.event.properties["n"]?.numberValue }
        #expect(order == order.sorted())
        #expect(KeptEvents.read(setup.home).isEmpty)
        let aside = try String(contentsOf: setup.home.file("state/outbox.jsonl.unreadable"), encoding: .utf8)
        #expect(aside.hasSuffix(#"{"language":"en","name":"point_trig"#))
        #expect(!FileManager.default.fileExists(atPath: setup.home.file("state/outbox.jsonl").path))
        print(
            "fault seed \(seed): sync killed \(kills) times in \(ContinuousClock.now - started); the server received \(received.received) events, \(received.duplicates) of them re-sent (same ids)"
        )
    }

    /// `--max-time` is the time spent failing, as `sync --help` says, not the whole sync: a slow
    /// service that takes every batch is sent everything, however long that takes (4 batches at
    /// 0.5 s: twice the max time). It stopped at the limit with exit 75, blaming the service ("did
    /// not answer: no answer within 0.1 s").
    @Test func aSlowServiceThatTakesEveryBatchIsSentEverythingWhateverTheMaxTime() async throws {
        var setup = try await Setup()
        let events = Self.journalEvents(200)
        try setup.writeJournal(events)
        try await setup.restart(.init(latencyMilliseconds: 500))
        let sync = try setup.walkscape(["sync", "--max-time", "1"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout == "Sent 200 events; 0 waiting, 0 quarantined.\n", "\(sync.stdout)")
        let received = try setup.server.events().events.filter { $0.event.anonymousID == "journal" }
        let inOrder = received.map(\.eventID) == events.map(\.eventID)
        #expect(inOrder, "\(received.count) of \(events.count) received, each once and in order")
    }

    /// A batch still on its way when the time runs out is no failure of the service: the sync says
    /// it ran out of time (it said the service "did not answer within 1 s").
    @Test func aSyncThatRunsOutOfTimeSaysSoWithoutBlamingTheService() async throws {
        var setup = try await Setup()
        try setup.writeJournal(Self.journalEvents(3))
        try await setup.restart(.init(latencyMilliseconds: 2500))
        let sync = try setup.walkscape(["sync", "--max-time", "1", "--json"])
        #expect(sync.status == 75, "\(sync.stderr)")
        #expect(sync.stderr.contains("out of time"), "\(sync.stderr)")
        #expect(!sync.stderr.contains("did not answer"), "\(sync.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: sync.stdoutData) as? [String: Any])
        #expect((report["problem"] as? String)?.contains("out of time") == true, "\(report)")
    }

    @Test func anEventTheServiceRefusesIsQuarantinedWithItsWordsWhileAllTheOthersArrive() async throws {
        let setup = try await Setup()
        // A future event name this service does not know: a 400 for any batch that holds it.
        let events = Self.journalEvents(60) { $0 == 37 ? "tour_shared" : "point_triggered" }
        try setup.writeJournal(events)
        let sync = try setup.walkscape(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(
            sync.stdout
                == "Sent 59 events; 0 waiting, 1 quarantined (1 just now: walkscape analytics status says why).\n")
        let received = try setup.server.events().events.filter { $0.event.anonymousID == "journal" }
        #expect(received.map(\.eventID) == events.filter { $0.name != "tour_shared" }.map(\.eventID))

        let status = try #require(
            try JSONSerialization.jsonObject(with: setup.walkscape(["analytics", "status", "--json"]).stdoutData)
                as? [String: Any])
        let refused = try #require((status["refused"] as? [[String: Any]])?.first)
        #expect(refused["eventId"] as? String == events[37].eventID)
        #expect(
            (refused["problem"] as? String)?.hasPrefix(
                "refused by the service: events.0.name must be one of the following values: app_open") == true,
            "\(refused)")
        // Kept, and never sent again by itself.
        #expect(try setup.walkscape(["sync"]).stdout == "Sent 0 events; 0 waiting, 1 quarantined.\n")
        #expect(try setup.server.events().events.count == received.count + 2)
    }

    @Test func eventsOfATourTheServiceDroppedAreQuarantinedAndTheOthersGoThrough() async throws {
        var setup = try await Setup()
        // A walk of the installed tour, recorded while the service had it; then account and
        // download events (the journal sends these to the configured service).
        let walked = Self.journalEvents(8)
        let others = Self.journalEvents(10) { $0 % 2 == 0 ? "login" : "tour_download_started" }.map {
            event -> AnalyticsEvent in
            var event = event
            event.tourID = nil
            event.pointID = nil
            return event
        }
        try setup.writeJournal(walked + others)
        // The service takes the tour down: it now answers 500 for any batch naming it (its foreign
        // keys), and everything else as before.
        try FileManager.default.moveItem(
            at: setup.tours.appendingPathComponent("demo"), to: setup.scratch.file("unpublished"))
        try await setup.restart(.init())
        let sync = try setup.walkscape(["sync", "--max-time", "20"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(
            sync.stdout
                == "Sent 10 events; 0 waiting, 8 quarantined (8 just now: walkscape analytics status says why).\n")
        let received = try setup.server.events().events.filter { $0.event.anonymousID == "journal" }
        #expect(received.map(\.eventID) == others.map(\.eventID))
        let status = try #require(
            try JSONSerialization.jsonObject(with: setup.walkscape(["analytics", "status", "--json"]).stdoutData)
                as? [String: Any])
        let refused = try #require(status["refused"] as? [[String: Any]])
        #expect(refused.compactMap { $0["eventId"] as? String } == walked.compactMap(\.eventID))
        #expect(
            refused.allSatisfy {
                ($0["problem"] as? String)?.hasPrefix("the service fails on it (HTTP 500, each time)") == true
            }, "\(refused)")
    }

    @Test func aBatchLargerThanTheServiceTakesIsSplitAndEverythingArrives() async throws {
        let setup = try await Setup()
        // 50 events of about 3 kB: 150 kB in one batch when the batch limit allows it.
        var events = Self.journalEvents(50)
        for i in events.indices { events[i].properties["note"] = .string(String(repeating: "w", count: 3000)) }
        try setup.writeJournal(events)
        let batchesBefore = try setup.server.stats()["eventBatches"] ?? 0
        let sync = try setup.walkscape(["sync"], environment: ["WALKSCAPE_ANALYTICS_BATCH_BYTES": "400000"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout == "Sent 50 events; 0 waiting, 0 quarantined.\n")
        let received = try setup.server.events().events.filter { $0.event.anonymousID == "journal" }
        #expect(received.map(\.eventID) == events.map(\.eventID))
        // The one batch was refused (413, over the server's 100 kB) and went in parts.
        #expect(try (setup.server.stats()["eventBatches"] ?? 0) - batchesBefore >= 2)
    }

    @Test func aWalkOfATourFolderStaysLocalEvenWithTheServiceReachableAndTheSameTourIds() async throws {
        // The folder the server serves: the same tour id and point ids as the installed tour. Its
        // walk's events are still local: a folder is not the service's tour (a curator's edit may
        // hold points the service has not published, whose ids would fail a whole batch).
        let setup = try await Setup()
        let before = try setup.server.events().received
        let gpsd = try GPSDHarness()
        let folder = setup.tours.appendingPathComponent("demo").path
        let child = try ChildProcess(
            TestPaths.walkscape,
            [
                "walk", folder, "--no-input", "--no-audio",
                "--gpsd-port", "\(gpsd.port)", "--home", setup.home.path,
            ],
            environment: ["NO_COLOR": "1", "WALKSCAPE_API_URL": setup.server.baseURL, "DO_NOT_TRACK": ""])
        #expect(await child.waitForOutput("gps: waiting for a fix", timeout: 10), "output: \(child.output)")
        _ = await Self.feed(gpsd, 0..<DemoTrace.afterPoint2) { false }
        #expect(await child.waitForOutput("triggered: 2. ", timeout: 15), "output: \(child.output)")
        child.signal(SIGTERM)
        #expect(await child.wait(timeout: 15) == 128 + SIGTERM, "output: \(child.output)")

        let kept = KeptEvents.read(setup.home)
        #expect(
            kept.compactMap { $0["name"] as? String } == [
                "tour_started", "point_triggered", "point_triggered", "tour_abandoned",
            ])
        #expect(
            kept.allSatisfy { $0["state"] as? String == "local" && $0["tourId"] as? String == Self.demoID }, "\(kept)")
        let sync = try setup.walkscape(["sync", "--json"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: sync.stdoutData) as? [String: Any])
        #expect(
            report["sent"] as? Int == 0 && report["waiting"] as? Int == 0 && report["local"] as? Int == 4, "\(report)")
        #expect(try setup.server.events().received == before, "a local walk's events reached the service")
    }

    @Test func withDoNotTrackOrAnalyticsOffNothingIsRecordedAndTheServerHearsNothing() async throws {
        let setup = try await Setup()
        let before = try setup.server.events().received
        try FileManager.default.removeItem(at: setup.home.file("state/analytics.sqlite"))
        for suffix in ["-wal", "-shm"] {
            try? FileManager.default.removeItem(at: setup.home.file("state/analytics.sqlite" + suffix))
        }
        try? FileManager.default.removeItem(at: setup.home.file("config/anonymous-id"))

        let dnt = ["DO_NOT_TRACK": "1"]
        #expect(
            try setup.walkscape(
                ["register", "--email", "bo@example.org", "--password-stdin"], environment: dnt,
                stdin: Data((Self.password + "\n").utf8)
            ).status == 0)
        #expect(try setup.walkscape(["remove", Self.slug], environment: dnt).status == 0)
        #expect(try setup.walkscape(["download", Self.slug, "-l", "en"], environment: dnt).status == 0)
        #expect(
            try setup.walkscape(
                ["login", "--email", "bo@example.org", "--password-stdin", "--no-analytics"],
                stdin: Data((Self.password + "\n").utf8)
            ).status == 0)
        #expect(try setup.walkscape(["analytics", "off"]).stdout.hasPrefix("Analytics is off"))
        #expect(try setup.walkscape(["remove", Self.slug, "-l", "en"]).status == 0)
        #expect(try setup.walkscape(["download", Self.slug, "-l", "en"]).status == 0)

        let gpsd = try GPSDHarness()
        let child = try setup.walk(gpsd: gpsd, environment: dnt)
        #expect(await child.waitForOutput("gps: waiting for a fix", timeout: 10), "output: \(child.output)")
        _ = await Self.feed(gpsd, 0..<DemoTrace.afterPoint1) { child.output.contains("triggered: 1. ") }
        #expect(await child.waitForOutput("triggered: 1. ", timeout: 10))
        child.signal(SIGTERM)
        #expect(await child.wait(timeout: 15) == 128 + SIGTERM)

        #expect(!FileManager.default.fileExists(atPath: setup.home.file("state/analytics.sqlite").path))
        #expect(!FileManager.default.fileExists(atPath: setup.home.file("config/anonymous-id").path))
        #expect(try setup.server.events().received == before)
        let status = try setup.walkscape(["analytics", "status"], environment: dnt).stdout
        #expect(status.hasPrefix("Analytics: off (DO_NOT_TRACK): nothing is recorded or sent."), "\(status)")
        // And on again: recorded and sent.
        #expect(try setup.walkscape(["analytics", "on"]).stdout.hasPrefix("Analytics is on"))
        #expect(try setup.walkscape(["remove", Self.slug]).status == 0)
        #expect(try setup.server.events().events.last?.event.name == "tour_download_deleted")
    }

    @Test func theGuidesDialectIsSentOnlyWhenConfiguredAndThenADeploymentOfThatDialectTakesIt() async throws {
        var setup = try await Setup()
        let events = Self.journalEvents(3)
        try setup.writeJournal(events)
        try await setup.restart(.init(dialect: "guide"))
        // The live shape to a guide deployment: refused as a whole, each event set aside.
        #expect(
            try setup.walkscape(["sync"]).stdout
                == "Sent 0 events; 0 waiting, 3 quarantined (3 just now: walkscape analytics status says why).\n")
        // Configured for the guide's dialect: `eventType`, ids inside `properties`.
        try setup.home.write("config/config", "analytics-dialect = guide\n")
        let sync = try setup.walkscape(["sync", "--retry-quarantined"])
        #expect(sync.stdout == "Sent 3 events; 0 waiting, 0 quarantined.\n", "\(sync.stderr)")
        let received = try setup.server.events().events.suffix(3)
        #expect(received.map(\.eventID) == events.map(\.eventID))
        #expect(
            received.allSatisfy {
                $0.event.name == "point_triggered" && $0.event.tourID == Self.demoID && $0.event.pointID != nil
            })
    }

    @Test func theOldJournalIsImportedWholeEachEventWhereItsToursCameFrom() async throws {
        let setup = try await Setup(register: true)
        let login = AnalyticsEvent(
            name: "login", timestamp: Date(timeIntervalSince1970: 1_799_000_000),
            properties: ["eventId": .string(UUID().uuidString.lowercased()), "platform": "linux"])
        let installed = Self.journalEvents(3)
        // A walk of a tour folder: ids no service knows.
        let folder = AnalyticsEvent(
            name: "tour_started", tourID: "my-local-tour", language: "en",
            timestamp: Date(timeIntervalSince1970: 1_799_500_000),
            properties: ["eventId": .string(UUID().uuidString.lowercased()), "platform": "linux"])
        try setup.writeJournal([login] + installed + [folder], tornTail: #"{"language":"e"#)
        let shown = KeptEvents.read(setup.home)
        #expect(
            shown.compactMap { ($0["properties"] as? [String: Any])?["eventId"] as? String }
                == ([login] + installed + [folder]).compactMap(\.eventID))
        #expect(shown.compactMap { $0["state"] as? String } == ["waiting", "waiting", "waiting", "waiting", "local"])
        #expect(try setup.walkscape(["sync"]).stdout == "Sent 4 events; 0 waiting, 0 quarantined.\n")
        let received = try setup.server.events().events.map(\.event)
        #expect(Array(received.suffix(4)).map(\.eventID) == ([login] + installed).map(\.eventID))
        #expect(KeptEvents.read(setup.home, state: "local").count == 1)
        #expect(
            try String(contentsOf: setup.home.file("state/outbox.jsonl.unreadable"), encoding: .utf8).hasSuffix(
                #"{"language":"e"#))
    }
    /// The old journal first found by a removal of its tour: its events still go to the tour's
    /// service, since the journal is imported before the tour (and so where it came from) is
    /// forgotten.
    @Test func theOldJournalFoundByARemovalOfItsTourStillGoesToTheToursService() async throws {
        let setup = try await Setup()
        let journal = Self.journalEvents(3)
        try setup.writeJournal(journal)
        let removal = try setup.walkscape(["remove", Self.slug])
        #expect(removal.status == 0, "\(removal.stderr)")
        #expect(KeptEvents.read(setup.home, state: "local").isEmpty)
        let sync = try setup.walkscape(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let received = Set(try setup.server.events().events.map(\.event.eventID))
        #expect(journal.allSatisfy { received.contains($0.eventID) })
    }

    /// With analytics off, a removal leaves the old journal alone (nothing is recorded, nothing
    /// imported); a journal that cannot be imported is said in a warning, and the removal goes on.
    @Test func aRemovalLeavesTheOldJournalAloneWithAnalyticsOffAndGoesOnWhenItCannotBeImported() async throws {
        let setup = try await Setup()
        try setup.writeJournal(Self.journalEvents(2))
        let journal = setup.home.file("state/outbox.jsonl")
        let before = try Data(contentsOf: journal)
        let off = try setup.walkscape(["remove", Self.slug], environment: ["DO_NOT_TRACK": "1"])
        #expect(off.status == 0, "\(off.stderr)")
        #expect(try Data(contentsOf: journal) == before)

        // A journal that cannot be opened for import (here a folder where the file would be).
        // (The download imports the journal left alone above.)
        #expect(try setup.walkscape(["download", Self.slug, "-l", "en"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: journal.path))
        try FileManager.default.createDirectory(at: journal, withIntermediateDirectories: false)
        let removal = try setup.walkscape(["remove", Self.slug])
        #expect(removal.status == 0, "\(removal.stderr)")
        #expect(
            removal.stderr.contains("walkscape: warning: cannot open \(journal.path) to import it"), "\(removal.stderr)"
        )
        #expect(!removal.stderr.contains("\n\n") && !removal.stderr.contains("Fatal"))
        #expect(try setup.walkscape(["tours", "--installed"]).stdout.contains(Self.slug) == false)
    }
    /// A command's recorders and the sending after it share one outbox, let go as the process
    /// ends: closed by its writing connection, which copies the log into the database and removes
    /// it (held to the end instead, the log stayed behind for the next command to recover).
    @Test func aCommandThatRecordsAndSendsLeavesTheOutboxClosed() async throws {
        let setup = try await Setup()
        #expect(try setup.server.events().events.contains { $0.event.name == "tour_download_completed" })
        #expect(FileManager.default.fileExists(atPath: setup.home.file("state/analytics.sqlite").path))
        // No log left with anything in it (empty when something still held the outbox at exit).
        let log = setup.home.file("state/analytics.sqlite-wal").path
        let size = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? nil
        #expect(!FileManager.default.fileExists(atPath: log) || size == 0, "\(String(describing: size)) bytes left")
    }
}
